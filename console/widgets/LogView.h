#pragma once

#include <QByteArray>
#include <QList>
#include <QStringDecoder>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QToolButton;

namespace runbox::console {

/// A live log: stdout in the normal colour, stderr in red, console notes in grey italics.
///
/// Memory is bounded: the view keeps at most maxChars() characters (the oldest lines are
/// dropped and a banner says how much), an unbroken line is split every 16 Ki characters, and
/// while paused the pending output is bounded the same way. Output is appended in batches (every
/// 50 ms) so a fast stream does not starve the UI. Follow keeps the end in view; scrolling up
/// stops following, scrolling back to the end resumes it. Bytes are decoded as UTF-8 per stream
/// with a stateful decoder (a character split across frames is joined; invalid bytes show as
/// U+FFFD).
class LogView final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogView)
public:
    enum Stream { Stdout = 1, Stderr = 2, Note = 3 };

    explicit LogView(QWidget* parent = nullptr);

    /// Appends output bytes of @p stream (Stdout or Stderr).
    void appendOutput(int stream, const QByteArray& bytes);
    /// Appends a console note on its own line (e.g. "exit: completed (0) after 1.2 s").
    void appendNote(const QString& text);
    void clear();

    /// The text on screen (not output held back while paused).
    QString plainText() const;
    /// Characters kept at most (default 4 Mi).
    int maxChars() const { return m_maxChars; }
    void setMaxChars(int chars);
    /// Characters dropped from the view (and from the pause buffer) so far.
    qint64 droppedChars() const { return m_droppedChars; }

    bool isFollowing() const { return m_following; }
    void setFollowing(bool follow);
    bool isPaused() const { return m_paused; }
    /// Paused: output is kept aside (bounded) and shown on resume.
    void setPaused(bool paused);

    /// Shows the find bar and focuses it.
    void showFindBar();
    /// Finds @p text from the cursor (wrapping around); selects it and returns whether found.
    bool find(const QString& text, bool backward = false, bool caseSensitive = false);
    /// Writes what the view shows to @p path (UTF-8). Returns false and sets @p error on failure.
    bool saveTo(const QString& path, QString* error) const;

    QPlainTextEdit* editor() const { return m_editor; }

Q_SIGNALS:
    void followingChanged(bool following);
    void pausedChanged(bool paused);

private:
    struct Piece {
        int stream;
        QString text;
    };
    void flush();
    void trimToLimit();
    void updateDroppedBanner();
    void onScrolled();
    void findFromBar(bool backward);

    QPlainTextEdit* m_editor;
    QLabel* m_droppedBanner;
    QWidget* m_findBar;
    QLineEdit* m_findEdit;
    QCheckBox* m_findCase;
    QLabel* m_findStatus;
    QStringDecoder m_decoders[2];
    QList<Piece> m_pending;
    qint64 m_pendingChars = 0;
    QTimer m_flushTimer;
    int m_maxChars = 4 * 1024 * 1024;
    qint64 m_droppedChars = 0;
    int m_currentLineChars = 0;
    int m_lastStream = 0;
    bool m_following = true;
    bool m_paused = false;
    bool m_adjustingScroll = false;
};

} // namespace runbox::console
