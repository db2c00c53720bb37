#pragma once

#include "console/api/FileEntry.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace runbox::console {

class AgentConnection;

/// A read-only preview of one small text file of a workspace: at most kMaxBytes, read through
/// the download route with `Range: bytes=0-(kMaxBytes-1)` so a file that grew meanwhile is
/// still read no further. Folders, links (never followed), larger files and bytes that are not
/// text (a NUL, or not UTF-8) are not shown: the label says why.
class FilePreview final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FilePreview)
public:
    static constexpr qint64 kMaxBytes = 64 * 1024;

    explicit FilePreview(QWidget* parent = nullptr);

    /// Shows @p entry of @p workspaceId, at workspace-relative @p path, read with @p connection.
    void show(AgentConnection* connection, const QString& workspaceId, const QString& path,
              const FileEntry& entry);
    /// Empties the preview.
    void clear();
    /// The text shown ("" when none).
    QString text() const;
    /// The status line (why nothing is shown, or the file's name).
    QString statusText() const;

Q_SIGNALS:
    /// The preview for @p path is settled: its text is shown (@p shown) or the label says why not.
    void ready(const QString& path, bool shown);

private:
    void showStatus(const QString& path, const QString& status);

    QLabel* m_status;
    QPlainTextEdit* m_text;
    QString m_path; ///< the path whose answer is awaited or shown
    int m_generation = 0;
};

} // namespace runbox::console
