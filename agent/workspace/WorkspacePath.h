#pragma once

#include "agent/workspace/WorkspaceResult.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace runbox::workspace {

/// A validated, workspace-relative path: a list of non-empty segments (raw bytes; Linux file
/// names are bytes, not necessarily UTF-8). The empty list is the workspace root.
///
/// Rules (docs/contracts.md "Workspace file API"), each refusal a 400 `invalid_path`:
/// - URL paths are percent-decoded exactly once (RFC 3986 §2.1), after splitting on the raw '/';
///   a malformed escape (`%`, `%4`, `%zz`) is refused.
/// - refused segments: empty (`a//b`, a leading '/' = absolute, a trailing '/'), `.` and `..`,
///   any containing NUL, '/' or '\\' once decoded (so `%2f`, `%5c`, `%00` inside a segment),
///   and any that still contain a percent escape after the one decode (`%252e` → `%2e`): a
///   literal '%' is allowed only when not followed by two hex digits (`100%`, `50%off` are
///   fine), so no later decoder can ever turn a name into `..` or a separator. The same rule
///   applies to JSON body paths, so a name the URL API cannot reach is never created either.
/// - a segment longer than 255 bytes (NAME_MAX) and a whole path of 4096 bytes or more
///   (PATH_MAX counts the terminating NUL) are refused.
class WorkspacePath final {
public:
    static constexpr qsizetype kMaxNameBytes = 255;
    static constexpr qsizetype kMaxPathBytes = 4095;

    /// The workspace root (no segments).
    WorkspacePath() = default;

    /// Parses the raw (still percent-encoded) tail of a request URL after `/files/`,
    /// e.g. `dir/my%20file.txt`. An empty tail is the root. No query string may be included.
    static Result<WorkspacePath> fromUrlTail(QByteArrayView rawTail);

    /// Parses a path from a JSON body (`files:move` `from`/`to`): UTF-8, no percent-decoding,
    /// relative (`a/b`); a leading '/' is refused like any empty segment.
    static Result<WorkspacePath> fromPlain(QByteArrayView utf8);

    /// Validates one file name (a single segment) by the rules above.
    static Status validateSegment(QByteArrayView segment);

    bool isRoot() const { return m_segments.isEmpty(); }
    const QList<QByteArray>& segments() const { return m_segments; }
    /// The last segment; empty for the root.
    QByteArray name() const { return isRoot() ? QByteArray() : m_segments.last(); }
    /// The path without its last segment (the root's parent is the root).
    WorkspacePath parent() const;
    /// This path plus one segment (validated by the caller, e.g. a directory entry name).
    WorkspacePath child(const QByteArray& segment) const;
    /// Segments joined by '/', no leading slash; empty for the root.
    QByteArray toRelative() const;

    bool operator==(const WorkspacePath& other) const = default;

private:
    static Result<WorkspacePath> fromSegments(QList<QByteArray> segments);
    QList<QByteArray> m_segments;
};

} // namespace runbox::workspace
