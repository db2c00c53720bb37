#include "console/core/ConsoleSettings.h"

#include "shared/FleetFile.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>

namespace runbox::console {

namespace {

struct KeyInfo {
    ConsoleSettings::Key key;
    const char* path;
    QVariant defaultValue;
};

// The one table of scalar keys: storage path and default.
const QList<KeyInfo>& keyTable() {
    static const QList<KeyInfo> table{
        {ConsoleSettings::Key::Language, "ui/language", QString()},
        {ConsoleSettings::Key::LastProfileId, "agents/lastProfileId", QString()},
        {ConsoleSettings::Key::ConnectedProfiles, "agents/connected", QStringList()},
        {ConsoleSettings::Key::LiveRefresh, "executions/liveRefresh", true},
        {ConsoleSettings::Key::LogViewMaxChars, "logView/maxChars", 4 * 1024 * 1024},
        {ConsoleSettings::Key::SshProgram, "connection/sshProgram", QStringLiteral("ssh")},
    };
    return table;
}

const KeyInfo& info(ConsoleSettings::Key key) {
    for (const KeyInfo& k : keyTable())
        if (k.key == key)
            return k;
    Q_UNREACHABLE();
}

// Layout names become settings keys: keep them to safe characters.
QString safeName(const QString& name) {
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_.-]"));
    return QString(name).replace(unsafe, QStringLiteral("_"));
}

const QString kProfilesArray = QStringLiteral("agents/profiles");

} // namespace

ConsoleSettings::ConsoleSettings()
    : m_settings(std::make_unique<QSettings>(QStringLiteral("Runbox"),
                                             QStringLiteral("runbox-console"))) {}

ConsoleSettings::ConsoleSettings(const QString& iniPath)
    : m_settings(std::make_unique<QSettings>(iniPath, QSettings::IniFormat)),
      m_fleetPath(QFileInfo(iniPath).absoluteDir().filePath(QStringLiteral("fleet.json"))) {}

ConsoleSettings::~ConsoleSettings() = default;

QVariant ConsoleSettings::value(Key key) const {
    const KeyInfo& k = info(key);
    return m_settings->value(QLatin1String(k.path), k.defaultValue);
}

void ConsoleSettings::setValue(Key key, const QVariant& value) {
    m_settings->setValue(QLatin1String(info(key).path), value);
}

QList<AgentProfile> ConsoleSettings::legacyProfiles() const {
    QList<AgentProfile> out;
    const int n = m_settings->beginReadArray(kProfilesArray);
    for (int i = 0; i < n; ++i) {
        m_settings->setArrayIndex(i);
        AgentProfile p;
        p.id = m_settings->value(QStringLiteral("id")).toString();
        p.name = m_settings->value(QStringLiteral("name")).toString();
        p.url = QUrl(m_settings->value(QStringLiteral("url")).toString());
        p.fingerprint = m_settings->value(QStringLiteral("fingerprint")).toString();
        p.viaSsh = m_settings->value(QStringLiteral("viaSsh"), false).toBool();
        p.sshHost = m_settings->value(QStringLiteral("sshHost")).toString();
        p.sshUser = m_settings->value(QStringLiteral("sshUser")).toString();
        p.sshPort = m_settings->value(QStringLiteral("sshPort"), 0).toInt();
        p.sshRemote = m_settings->value(QStringLiteral("sshRemote")).toString();
        if (!p.id.isEmpty())
            out.append(p);
    }
    m_settings->endArray();
    return out;
}

void ConsoleSettings::clearLegacyProfiles() {
    m_settings->remove(kProfilesArray);
}

QString ConsoleSettings::fleetPath() const {
    return m_fleetPath.isEmpty() ? FleetFile::defaultPath() : m_fleetPath;
}

QByteArray ConsoleSettings::layoutValue(const QString& group, const QString& name) const {
    return m_settings->value(group + u'/' + safeName(name)).toByteArray();
}

void ConsoleSettings::setLayoutValue(const QString& group, const QString& name,
                                     const QByteArray& value) {
    m_settings->setValue(group + u'/' + safeName(name), value);
}

QByteArray ConsoleSettings::windowGeometry(const QString& window) const {
    return layoutValue(QStringLiteral("layout/geometry"), window);
}

void ConsoleSettings::setWindowGeometry(const QString& window, const QByteArray& geometry) {
    setLayoutValue(QStringLiteral("layout/geometry"), window, geometry);
}

QByteArray ConsoleSettings::windowState(const QString& window) const {
    return layoutValue(QStringLiteral("layout/windowState"), window);
}

void ConsoleSettings::setWindowState(const QString& window, const QByteArray& state) {
    setLayoutValue(QStringLiteral("layout/windowState"), window, state);
}

QByteArray ConsoleSettings::tableState(const QString& table) const {
    return layoutValue(QStringLiteral("layout/table"), table);
}

void ConsoleSettings::setTableState(const QString& table, const QByteArray& state) {
    setLayoutValue(QStringLiteral("layout/table"), table, state);
}

QByteArray ConsoleSettings::splitterState(const QString& splitter) const {
    return layoutValue(QStringLiteral("layout/splitter"), splitter);
}

void ConsoleSettings::setSplitterState(const QString& splitter, const QByteArray& state) {
    setLayoutValue(QStringLiteral("layout/splitter"), splitter, state);
}

void ConsoleSettings::sync() {
    m_settings->sync();
}

QString ConsoleSettings::location() const {
    return m_settings->fileName();
}

} // namespace runbox::console
