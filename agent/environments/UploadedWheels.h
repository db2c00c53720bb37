#pragma once

#include "agent/Error.h"

#include <QJsonArray>
#include <QList>
#include <QString>

#include <optional>

namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::environments {

/// Wheels a client uploaded into a workspace and named in an install (docs/environments.md
/// "Uploaded wheels"). Each is copied into its environment's own store under the state dir,
/// `<store>/<sha256>/<file name>`, so that every later revision of the environment is built from
/// the same bytes whatever happens to the workspace; a revision's spec names them by file name
/// and SHA-256. Builds see the store read-only at kBuildMount.
namespace UploadedWheels {

/// Where a build sees its environment's store.
inline constexpr char kBuildMount[] = "/opt/uploaded-wheels";
/// The largest wheel copied, in bytes (TooLarge `wheel_too_large` past it).
inline constexpr qint64 kMaxWheelBytes = qint64(512) << 20;
/// The most wheels one install names.
inline constexpr int kMaxWheelsPerInstall = 32;
/// The most bytes of wheels one install copies, all wheels together (the copy runs on the
/// agent's event loop: about 1 s per 500 MiB here).
inline constexpr qint64 kMaxBytesPerInstall = qint64(512) << 20;

/// One stored wheel.
struct Wheel {
    QString file;   ///< its file name, a wheel name (isWheelFileName)
    QString sha256; ///< 64 lower-case hex digits
    /// The project it holds, normalised as PEP 503 says (lower case, each run of `-`, `_`,
    /// `.` one `-`): what replaces or uninstalls it.
    QString project() const;
    /// Its path inside a build: `kBuildMount/<sha256>/<file>`.
    QString buildPath() const;
};

/// Whether @p name is a wheel file name of the binary distribution format (PyPA
/// specifications, "Binary distribution format": `{distribution}-{version}(-{build
/// tag})?-{python tag}-{abi tag}-{platform tag}.whl`, each part of letters, digits, `_` and
/// `.`, the version also `!` and `+`, a build tag starting with a digit). Nothing else: no
/// path separator, no leading `-` or `.`.
bool isWheelFileName(const QString& name);

/// Copies regular file @p path of workspace @p fs (resolved by the workspace file layer: no
/// link followed, no path out of the workspace) into @p storeDir (created 0755; the file 0644,
/// written under a temporary name, then renamed, so a reader never sees a partial one). Errors:
/// InvalidArgument `invalid_wheels` (not a wheel file name; a sparse file: more than 64 KiB of
/// its size unallocated, which a zip archive never is), the file layer's (`not_found`,
/// `symlink_not_followed`, `is_a_directory`…), TooLarge `wheel_too_large`, Internal
/// `wheel_store_failed`.
std::optional<Error> import(const workspace::WorkspaceFs& fs, const QString& path,
                            const QString& storeDir, Wheel* out);

/// @p base with @p added merged in: a wheel of a project already in @p base replaces it in
/// place, the others are appended (the wheels of the next revision).
QList<Wheel> merge(const QList<Wheel>& base, const QList<Wheel>& added);

/// `[{"file","sha256"}…]`, as a revision's spec records them.
QJsonArray toJson(const QList<Wheel>& wheels);
/// The wheels of a spec's `wheels` array; entries that are not well formed are skipped (specs
/// are the agent's own).
QList<Wheel> fromJson(const QJsonArray& array);

} // namespace UploadedWheels

} // namespace runbox::environments
