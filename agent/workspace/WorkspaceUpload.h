#pragma once

#include "agent/workspace/WorkspaceFileInfo.h"
#include "agent/workspace/WorkspaceResolver.h"
#include "agent/workspace/WorkspaceResult.h"

#include <QByteArrayView>
#include <QStringView>

#include <memory>
#include <optional>

namespace runbox::workspace {

/// What a PUT does when the target already exists (`?conflict=reject|overwrite`).
enum class ConflictPolicy { Reject, Overwrite };

/// Options of WorkspaceFs::beginUpload.
struct UploadOptions {
    bool createParents = false; ///< mkdir -p the parent (0755, owned like the file)
    ConflictPolicy conflict = ConflictPolicy::Reject;
    /// Permission bits (0..0777; `?mode=755`). Unset: the replaced file's bits on overwrite,
    /// else 0644. setuid/setgid/sticky are never set (parseMode refuses them).
    std::optional<quint32> mode;
    qint64 maxBytes = 0; ///< 0 = unlimited; writing past it fails with 413 upload_too_large
    /// fsync the file before the rename and the directory after it; while writing, start the
    /// writeback of every kWritebackBytes written (sync_file_range(2) SYNC_FILE_RANGE_WRITE, which
    /// does not wait), so that commit()'s fsync finds only the last few MiB dirty.
    bool durable = true;
    /// Hash the bytes with SHA-256 for commit()'s check. false when the body was verified
    /// another way (chained chunk signatures, docs/upload-integrity.md): commit() then takes
    /// an empty expected hash only.
    bool hashContent = true;

    /// Parses an octal mode of 1 to 4 digits ("755", "0644"); nullopt when malformed or
    /// above 0777 (the caller answers 400 invalid_mode).
    static std::optional<quint32> parseMode(QStringView text);
};

/// An upload in progress: bytes go to an anonymous O_TMPFILE in the target's directory (or,
/// where the filesystem has no O_TMPFILE, a `.runbox-upload-<hex>` file created O_EXCL there),
/// hashed with SHA-256 as they arrive. commit() verifies the hash, sets owner and mode on the
/// descriptor, fsyncs, and publishes the file atomically: linkat (O_TMPFILE, reject) or
/// renameat2(RENAME_NOREPLACE) for ConflictPolicy::Reject (409 file_exists if something
/// appeared meanwhile), rename(2) over the old file for Overwrite. Readers see the old file or
/// the whole new one, never a partial one. Destroying an uncommitted upload aborts it, leaving
/// nothing behind: not the temporary file, nor the directories beginUpload made for
/// `createParents` (those still empty and still the same directory are removed, innermost
/// first; see WorkspaceResolver::removeCreated). Move-only; use from one thread at a time.
class WorkspaceUpload final {
public:
    WorkspaceUpload(WorkspaceUpload&&) noexcept;
    WorkspaceUpload& operator=(WorkspaceUpload&&) noexcept;
    ~WorkspaceUpload();

    /// Bytes written between two writeback starts (see UploadOptions::durable).
    static constexpr qint64 kWritebackBytes = 8 * 1024 * 1024;

    /// Appends @p size bytes. Errors: 413 upload_too_large (past maxBytes), 413 no_space,
    /// 500 io_error; after an error the upload is aborted.
    Status write(const char* data, qsizetype size);
    Status write(QByteArrayView data) { return write(data.data(), data.size()); }
    qint64 bytesWritten() const;
    /// False once committed or aborted.
    bool isOpen() const;

    /// Verifies @p expectedSha256Hex (64 hex digits, any case; empty skips the check; must be
    /// empty without UploadOptions::hashContent, else 500 internal_error) against what was written
    /// — mismatch: 400 checksum_mismatch and nothing is left — then publishes the file. Returns the
    /// new file's metadata. 409 file_exists (reject), 409 is_a_directory.
    Result<FileInfo> commit(QByteArrayView expectedSha256Hex);
    /// Discards the upload (idempotent).
    void abort();

    /// Tests only: never use O_TMPFILE, as on a filesystem without it (named-temp path).
    static void setForceNamedTempForTesting(bool force);

private:
    friend class WorkspaceFs;
    struct State;
    explicit WorkspaceUpload(std::unique_ptr<State> state);
    static Result<WorkspaceUpload> begin(UniqueFd parentFd, const QByteArray& name,
                                         const QByteArray& relativePath, quint32 mode,
                                         const UploadOptions& options,
                                         const std::optional<WorkspaceOwner>& owner,
                                         std::vector<CreatedDirectory> createdDirs = {});
    std::unique_ptr<State> d;
};

} // namespace runbox::workspace
