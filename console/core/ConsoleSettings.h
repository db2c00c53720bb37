#pragma once

#include "console/connection/AgentProfile.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QVariant>

#include <memory>

class QSettings;

namespace runbox::console {

/// The console's one typed settings facade over QSettings: every key, its storage path and
/// its default are declared once (see the table in ConsoleSettings.cpp); nothing else in the
/// console touches QSettings. Secrets are never stored here: tokens live in TokenVault.
class ConsoleSettings final {
public:
    /// Scalar keys. Per-window and per-table layouts use the *State(name) functions below.
    enum class Key {
        Language,          ///< QString: "" = the system language, else "zh_CN", "es", "vi", "en"
        LastProfileId,     ///< QString: the agent selected when the console was closed
        ConnectedProfiles, ///< QStringList: profiles to reconnect to at start-up
        LiveRefresh,       ///< bool: executions page refreshes itself (default true)
        LogViewMaxChars,   ///< int: characters the log view keeps (default 4 Mi)
        SshProgram,        ///< QString: the ssh an SSH profile runs (default "ssh"; a wrapper)
    };

    /// Uses the platform's native store (organisation "Runbox", application "runbox-console").
    ConsoleSettings();
    /// Uses an INI file at @p iniPath (tests, portable installs).
    explicit ConsoleSettings(const QString& iniPath);
    ~ConsoleSettings();
    ConsoleSettings(const ConsoleSettings&) = delete;
    ConsoleSettings& operator=(const ConsoleSettings&) = delete;

    QVariant value(Key key) const;
    void setValue(Key key, const QVariant& value);

    QString language() const { return value(Key::Language).toString(); }
    void setLanguage(const QString& code) { setValue(Key::Language, code); }

    /// The agent profiles an earlier console kept here (array `agents/profiles`), before they
    /// moved into the fleet file (ProfileStore::migrate); empty once migrated.
    QList<AgentProfile> legacyProfiles() const;
    /// Removes the legacy profiles (after ProfileStore::migrate wrote them to the fleet file).
    void clearLegacyProfiles();

    /// The fleet file that holds the agent profiles (ProfileStore): setFleetPath()'s, else for
    /// an INI settings file `fleet.json` beside it, else FleetFile::defaultPath().
    QString fleetPath() const;
    /// Uses @p path as the fleet file this run (the console's --fleet; not stored).
    void setFleetPath(const QString& path) { m_fleetPath = path; }

    /// Opaque geometry of a top-level window (QWidget::saveGeometry()).
    QByteArray windowGeometry(const QString& window) const;
    void setWindowGeometry(const QString& window, const QByteArray& geometry);
    /// Opaque state of a main window's docks and toolbars (QMainWindow::saveState()).
    QByteArray windowState(const QString& window) const;
    void setWindowState(const QString& window, const QByteArray& state);
    /// Opaque header state of a table (QHeaderView::saveState()): widths, order, sort.
    QByteArray tableState(const QString& table) const;
    void setTableState(const QString& table, const QByteArray& state);
    /// Opaque splitter state (QSplitter::saveState()).
    QByteArray splitterState(const QString& splitter) const;
    void setSplitterState(const QString& splitter, const QByteArray& state);

    /// Writes pending changes to storage.
    void sync();
    /// Where the settings live (file path or registry path), for diagnostics and tests.
    QString location() const;

private:
    QByteArray layoutValue(const QString& group, const QString& name) const;
    void setLayoutValue(const QString& group, const QString& name, const QByteArray& value);

    std::unique_ptr<QSettings> m_settings;
    QString m_fleetPath;
};

} // namespace runbox::console
