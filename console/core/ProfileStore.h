#pragma once

#include "console/connection/AgentProfile.h"
#include "shared/FleetFile.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

namespace runbox::console {

class ConsoleSettings;

/// The console's agent profiles, kept in the fleet file that the CLI and the Python client
/// read too (docs/contracts.md "Fleet file"), pins and SSH fields included; tokens stay in the
/// keychain (the entry named by `keychain`, the profile's id) or in the 0600 file an entry names.
///
/// A fleet file that cannot be read as one is never overwritten: load() says why and save()
/// refuses until it is mended. save() keeps what another program (`runbox pool create`, an
/// editor) did to the file since load(): agents it added, entries it changed or removed that
/// the console did not change itself.
class ProfileStore final {
public:
    explicit ProfileStore(QString fleetPath);

    QString path() const { return m_path; }

    /// Reads the fleet file into @p profiles (none when it does not exist). Empty on success,
    /// else why (FleetFile::load's message); then nothing may be saved.
    QString load(QList<AgentProfile>* profiles);
    /// Moves the profiles an earlier console kept in its settings (ConsoleSettings::
    /// legacyProfiles) into the fleet file: each one whose id no fleet entry names as its
    /// keychain entry is appended, with its name made a valid, unique fleet name; the settings'
    /// copy is removed only once the fleet file was written. Empty on success, else why.
    QString migrate(ConsoleSettings* settings, QList<AgentProfile>* profiles);
    /// Writes @p profiles as the fleet file's agents (plus agents others added since load()).
    /// Empty on success, else why (a fleet file load() refused, an unreadable or unwritable one).
    QString save(const QList<AgentProfile>& profiles);

    /// A fleet entry as a profile: id = the keychain entry's name, or "file:" + name for a
    /// token file, "pool:" + name for a pool entry.
    static AgentProfile fromFleet(const FleetAgent& agent);
    /// A profile as a fleet entry (keychain = its id unless it reads a token file or derives its
    /// token from a pool's secret).
    static FleetAgent toFleet(const AgentProfile& profile);
    /// @p name as a valid fleet name (FleetFile::validName) not in @p taken: other characters
    /// become '-', at most 64, "agent" when nothing is left, "-2", "-3"… when taken.
    static QString fleetName(const QString& name, const QSet<QString>& taken);

private:
    QString m_path;
    bool m_loaded = false; ///< load() read the file or found none
    /// Each entry as the file had it at load() (or the last save()), by name: an entry the
    /// console did not change since is written as the file has it now (or left out when another
    /// program removed it).
    QHash<QString, QByteArray> m_seen;
    /// A token file's absolute path → as the file wrote it (relative ones stay relative).
    QHash<QString, QString> m_tokenFilesAsWritten;
};

} // namespace runbox::console
