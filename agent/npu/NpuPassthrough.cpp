#include "agent/npu/NpuPassthrough.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <sys/stat.h>

namespace runbox::npu {

namespace {

constexpr int kMaxLogicId = 1023;
constexpr int kMaxEntries = 1024;
const char* const kManagementNodes[] = {"davinci_manager", "devmm_svm", "hisi_hdc"};

Error invalid(const QString& message) {
    return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_npu_devices"), message};
}

QString describe(const QJsonValue& value) {
    if (value.isString())
        return QStringLiteral("the string \"%1\"").arg(value.toString().left(64));
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 17);
    if (value.isArray())
        return QStringLiteral("an array");
    if (value.isObject())
        return QStringLiteral("an object");
    return QStringLiteral("null");
}

bool isCharDevice(const QString& path) {
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISCHR(st.st_mode);
}

/// --ro-bind for a host directory unless it already lies under /usr, which every launch binds
/// read-only (docs/contracts.md "Strong sandbox"). The source is canonical so a symlinked "latest"
/// works.
void bindDirectory(const QString& path, QStringList* args) {
    if (path.isEmpty())
        return;
    const QString clean = QDir::cleanPath(path);
    if (clean == QLatin1String("/usr") || clean.startsWith(QLatin1String("/usr/")))
        return;
    const QFileInfo info(clean);
    if (!info.isDir())
        return;
    *args << QStringLiteral("--ro-bind") << info.canonicalFilePath() << clean;
}

} // namespace

QMap<QString, QString> NpuLaunchPlan::mergedEnvironment(const QMap<QString, QString>& base) const {
    if (isEmpty())
        return base;
    QMap<QString, QString> merged = base;
    auto join = [](const QString& first, const QString& second) {
        if (first.isEmpty())
            return second;
        if (second.isEmpty())
            return first;
        return first + QLatin1Char(':') + second;
    };
    for (auto it = env.cbegin(); it != env.cend(); ++it) {
        const QString& key = it.key();
        if (key == QLatin1String("LD_LIBRARY_PATH"))
            merged[key] = join(it.value(), base.value(key));
        else if (key == QLatin1String("PYTHONPATH"))
            merged[key] = join(base.value(key), it.value());
        else if (key == QLatin1String("PATH")) {
            const QString rest = base.value(key, QStringLiteral("/usr/bin:/bin"));
            merged[key] =
                rest.split(QLatin1Char(':')).value(0) == it.value() ? rest : join(it.value(), rest);
        } else
            merged[key] = it.value();
    }
    return merged;
}

QStringList NpuLaunchPlan::setenvArgs(const QMap<QString, QString>& base) const {
    QStringList args;
    const QMap<QString, QString> merged = mergedEnvironment(base);
    for (auto it = merged.cbegin(); it != merged.cend(); ++it)
        args << QStringLiteral("--setenv") << it.key() << it.value();
    return args;
}

NpuPassthrough::NpuPassthrough(NpuConfig config) : m_config(std::move(config)) {}

QList<int> NpuPassthrough::parseIds(const QJsonValue& requested, Error* error) {
    Error ignored;
    if (!error)
        error = &ignored;
    if (requested.isUndefined() || requested.isNull())
        return {};
    if (!requested.isArray()) {
        *error = invalid(QStringLiteral("npuDevices must be an array of chip logic ids, got %1")
                             .arg(describe(requested)));
        return {};
    }
    const QJsonArray array = requested.toArray();
    if (array.size() > kMaxEntries) {
        *error = invalid(QStringLiteral("npuDevices has %1 entries; at most %2 are accepted")
                             .arg(array.size())
                             .arg(kMaxEntries));
        return {};
    }
    QSet<int> unique;
    for (int i = 0; i < array.size(); ++i) {
        const QJsonValue value = array.at(i);
        const double number = value.toDouble(-1);
        if (!value.isDouble() || number < 0 || number > kMaxLogicId ||
            number != static_cast<double>(static_cast<int>(number))) {
            *error = invalid(QStringLiteral("npuDevices[%1] must be a chip logic id (an integer "
                                            "0..%2), got %3")
                                 .arg(i)
                                 .arg(kMaxLogicId)
                                 .arg(describe(value)));
            return {};
        }
        unique.insert(static_cast<int>(number));
    }
    QList<int> ids(unique.cbegin(), unique.cend());
    std::sort(ids.begin(), ids.end());
    return ids;
}

QList<int> NpuPassthrough::parseSelection(const QJsonValue& requested, const NpuSnapshot& inventory,
                                          Error* error) {
    Error ignored;
    if (!error)
        error = &ignored;
    Error formError;
    const QList<int> ids = parseIds(requested, &formError);
    if (!formError.code.isEmpty()) {
        *error = formError;
        return {};
    }
    for (int id : ids) {
        const NpuChip* chip = inventory.find(id);
        if (!chip) {
            QStringList known;
            for (const NpuChip& c : inventory.chips)
                known << QString::number(c.logicId);
            *error = invalid(
                known.isEmpty()
                    ? QStringLiteral("NPU %1 does not exist: this host has no Ascend NPU").arg(id)
                    : QStringLiteral("NPU %1 does not exist on this host (chips: %2)")
                          .arg(id)
                          .arg(known.join(QStringLiteral(", "))));
            return {};
        }
        if (!chip->supported) {
            *error = invalid(QStringLiteral("NPU %1 cannot be selected: %2")
                                 .arg(id)
                                 .arg(chip->unsupportedReason));
            return {};
        }
    }
    return ids;
}

namespace {
/// The group of @p node when it grants read and write to its group (and is not root's group).
void addDeviceGroup(const QString& node, QList<gid_t>* groups) {
    struct stat st {};
    if (::stat(QFile::encodeName(node).constData(), &st) != 0 || st.st_gid == 0 ||
        (st.st_mode & (S_IRGRP | S_IWGRP)) != (S_IRGRP | S_IWGRP) || groups->contains(st.st_gid))
        return;
    groups->append(st.st_gid);
}
} // namespace

NpuLaunchPlan NpuPassthrough::build(const QList<int>& logicIds, Error* error) const {
    Error ignored;
    if (!error)
        error = &ignored;
    NpuLaunchPlan plan;
    QList<int> ids = QSet<int>(logicIds.cbegin(), logicIds.cend()).values();
    std::sort(ids.begin(), ids.end());
    if (ids.isEmpty())
        return plan;
    const QString root = QDir::cleanPath(m_config.deviceRoot);
    for (int i = 0; i < ids.size(); ++i) {
        const QString node = root + QStringLiteral("/davinci%1").arg(ids[i]);
        if (ids[i] < 0 || ids[i] > kMaxLogicId || !isCharDevice(node)) {
            *error = Error{ErrorKind::Unavailable, QStringLiteral("npu_device_missing"),
                           QStringLiteral("NPU %1 has no device node %2").arg(ids[i]).arg(node)};
            return {};
        }
        plan.bwrapArgs << QStringLiteral("--dev-bind") << node
                       << QStringLiteral("/dev/davinci%1").arg(i);
        addDeviceGroup(node, &plan.deviceGroups);
    }
    for (const char* name : kManagementNodes) {
        const QString node = root + QLatin1Char('/') + QLatin1String(name);
        if (isCharDevice(node)) {
            plan.bwrapArgs << QStringLiteral("--dev-bind") << node
                           << QStringLiteral("/dev/") + QLatin1String(name);
            addDeviceGroup(node, &plan.deviceGroups);
        }
    }
    if (!m_config.installInfoPath.isEmpty() && QFileInfo(m_config.installInfoPath).isFile())
        plan.bwrapArgs << QStringLiteral("--ro-bind") << m_config.installInfoPath
                       << QStringLiteral("/etc/ascend_install.info");
    bindDirectory(m_config.driverPath, &plan.bwrapArgs);
    bindDirectory(m_config.toolkitPath, &plan.bwrapArgs);

    const QString driver = QDir::cleanPath(m_config.driverPath);
    const QString toolkit = QDir::cleanPath(m_config.toolkitPath);
    QStringList visible;
    for (int i = 0; i < ids.size(); ++i)
        visible << QString::number(i);
    plan.hostLogicIds = ids;
    plan.env = {
        {QStringLiteral("LD_LIBRARY_PATH"),
         QStringList{driver + QStringLiteral("/lib64/common"),
                     driver + QStringLiteral("/lib64/driver"), toolkit + QStringLiteral("/lib64")}
             .join(QLatin1Char(':'))},
        {QStringLiteral("ASCEND_TOOLKIT_HOME"), toolkit},
        {QStringLiteral("ASCEND_HOME_PATH"), toolkit},
        {QStringLiteral("ASCEND_OPP_PATH"), toolkit + QStringLiteral("/opp")},
        {QStringLiteral("ASCEND_AICPU_PATH"), toolkit},
        {QStringLiteral("PYTHONPATH"),
         QStringList{toolkit + QStringLiteral("/python/site-packages"),
                     toolkit + QStringLiteral("/opp/built-in/op_impl/ai_core/tbe")}
             .join(QLatin1Char(':'))},
        {QStringLiteral("PATH"), QStringLiteral("/usr/local/bin")},
        {QStringLiteral("ASCEND_VISIBLE_DEVICES"), visible.join(QLatin1Char(','))},
        {QStringLiteral("ASCEND_RT_VISIBLE_DEVICES"), visible.join(QLatin1Char(','))},
    };
    return plan;
}

} // namespace runbox::npu
