#include "console/widgets/LogView.h"

#include "console/api/HealthReport.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QIcon>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSaveFile>
#include <QScrollBar>
#include <QShortcut>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
constexpr int kFlushIntervalMs = 50;
constexpr int kMaxLineChars = 16 * 1024;

QTextCharFormat formatFor(int stream, const QPalette& palette) {
    QTextCharFormat f;
    if (stream == LogView::Stderr) {
        f.setForeground(QColor(0xc6, 0x28, 0x28));
    } else if (stream == LogView::Note) {
        f.setForeground(palette.color(QPalette::Disabled, QPalette::Text));
        f.setFontItalic(true);
    } else {
        f.setForeground(palette.color(QPalette::Text));
    }
    return f;
}
} // namespace

LogView::LogView(QWidget* parent)
    : QWidget(parent), m_editor(new QPlainTextEdit(this)), m_droppedBanner(new QLabel(this)),
      m_findBar(new QWidget(this)), m_findEdit(new QLineEdit(m_findBar)),
      m_findCase(new QCheckBox(tr("Match case"), m_findBar)),
      m_findStatus(new QLabel(m_findBar)), m_decoders{QStringDecoder(QStringDecoder::Utf8),
                                                      QStringDecoder(QStringDecoder::Utf8)} {
    m_editor->setReadOnly(true);
    m_editor->setUndoRedoEnabled(false);
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_editor->setObjectName(QStringLiteral("logEditor"));
    m_editor->setPlaceholderText(tr("No output yet."));

    m_droppedBanner->setVisible(false);
    m_droppedBanner->setWordWrap(true);
    m_droppedBanner->setStyleSheet(QStringLiteral(
        "QLabel { background: palette(alternate-base); padding: 4px; border-radius: 3px; }"));

    auto* findLayout = new QHBoxLayout(m_findBar);
    findLayout->setContentsMargins(0, 0, 0, 0);
    auto* findLabel = new QLabel(tr("Find:"), m_findBar);
    m_findEdit->setPlaceholderText(tr("Text in the log"));
    m_findEdit->setClearButtonEnabled(true);
    m_findEdit->setObjectName(QStringLiteral("logFind"));
    findLabel->setBuddy(m_findEdit);
    auto* prev = new QToolButton(m_findBar);
    prev->setIcon(QIcon(QStringLiteral(":/icons/arrow-up.svg")));
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto* next = new QToolButton(m_findBar);
    next->setIcon(QIcon(QStringLiteral(":/icons/arrow-down.svg")));
    next->setToolTip(tr("Next match (Enter)"));
    auto* close = new QToolButton(m_findBar);
    close->setIcon(QIcon(QStringLiteral(":/icons/close.svg")));
    close->setToolTip(tr("Close the find bar (Esc)"));
    findLayout->addWidget(findLabel);
    findLayout->addWidget(m_findEdit, 1);
    findLayout->addWidget(prev);
    findLayout->addWidget(next);
    findLayout->addWidget(m_findCase);
    findLayout->addWidget(m_findStatus);
    findLayout->addWidget(close);
    m_findBar->setVisible(false);
    connect(m_findEdit, &QLineEdit::returnPressed, this,
            [this] { findFromBar(QGuiApplication::keyboardModifiers() & Qt::ShiftModifier); });
    connect(prev, &QToolButton::clicked, this, [this] { findFromBar(true); });
    connect(next, &QToolButton::clicked, this, [this] { findFromBar(false); });
    connect(close, &QToolButton::clicked, m_findBar, &QWidget::hide);
    auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), m_findBar);
    escape->setContext(Qt::WidgetWithChildrenShortcut);
    connect(escape, &QShortcut::activated, m_findBar, &QWidget::hide);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_droppedBanner);
    layout->addWidget(m_editor, 1);
    layout->addWidget(m_findBar);

    m_flushTimer.setInterval(kFlushIntervalMs);
    m_flushTimer.setSingleShot(true);
    connect(&m_flushTimer, &QTimer::timeout, this, &LogView::flush);
    connect(m_editor->verticalScrollBar(), &QScrollBar::valueChanged, this, &LogView::onScrolled);
}

void LogView::appendOutput(int stream, const QByteArray& bytes) {
    if (stream != Stdout && stream != Stderr)
        return;
    const QString text = m_decoders[stream - 1].decode(bytes);
    if (text.isEmpty())
        return;
    m_pending.append({stream, text});
    m_pendingChars += text.size();
    // Bounded while paused (or while the UI is busy): drop the oldest pending output.
    while (m_pendingChars > m_maxChars && m_pending.size() > 1) {
        m_pendingChars -= m_pending.first().text.size();
        m_droppedChars += m_pending.first().text.size();
        m_pending.removeFirst();
    }
    if (!m_paused && !m_flushTimer.isActive())
        m_flushTimer.start();
}

void LogView::appendNote(const QString& text) {
    m_pending.append({Note, text});
    m_pendingChars += text.size();
    if (!m_paused && !m_flushTimer.isActive())
        m_flushTimer.start();
}

void LogView::clear() {
    m_pending.clear();
    m_pendingChars = 0;
    m_droppedChars = 0;
    m_currentLineChars = 0;
    m_lastStream = 0;
    for (QStringDecoder& d : m_decoders)
        d.resetState();
    m_editor->clear();
    updateDroppedBanner();
}

QString LogView::plainText() const {
    return m_editor->toPlainText();
}

void LogView::setMaxChars(int chars) {
    m_maxChars = std::max(chars, 1024);
    trimToLimit();
}

void LogView::flush() {
    if (m_paused || m_pending.isEmpty())
        return;
    QTextCursor cursor(m_editor->document());
    cursor.movePosition(QTextCursor::End);
    cursor.beginEditBlock();
    const QPalette pal = m_editor->palette();
    for (const Piece& piece : std::as_const(m_pending)) {
        const QTextCharFormat fmt = formatFor(piece.stream, pal);
        if (piece.stream == Note) {
            if (m_currentLineChars > 0)
                cursor.insertText(QStringLiteral("\n"), fmt);
            cursor.insertText(piece.text + u'\n', fmt);
            m_currentLineChars = 0;
            continue;
        }
        // Split unbroken lines so no single block grows without bound.
        qsizetype pos = 0;
        while (pos < piece.text.size()) {
            const qsizetype nl = piece.text.indexOf(u'\n', pos);
            const qsizetype lineEnd = nl < 0 ? piece.text.size() : nl;
            qsizetype take = std::min<qsizetype>(lineEnd - pos, kMaxLineChars - m_currentLineChars);
            cursor.insertText(piece.text.mid(pos, take), fmt);
            m_currentLineChars += int(take);
            pos += take;
            if (pos == nl) {
                cursor.insertText(QStringLiteral("\n"), fmt);
                m_currentLineChars = 0;
                ++pos;
            } else if (m_currentLineChars >= kMaxLineChars) {
                cursor.insertText(QStringLiteral("\n"), fmt);
                m_currentLineChars = 0;
            }
        }
        m_lastStream = piece.stream;
    }
    cursor.endEditBlock();
    m_pending.clear();
    m_pendingChars = 0;
    trimToLimit();
    if (m_following) {
        m_adjustingScroll = true;
        m_editor->verticalScrollBar()->setValue(m_editor->verticalScrollBar()->maximum());
        m_adjustingScroll = false;
    }
}

void LogView::trimToLimit() {
    QTextDocument* doc = m_editor->document();
    const int excess = doc->characterCount() - m_maxChars;
    if (excess <= 0)
        return;
    // Drop whole lines from the top, a little more than needed so this does not run per flush.
    QTextCursor cursor(doc);
    cursor.movePosition(QTextCursor::Start);
    cursor.setPosition(std::min(doc->characterCount() - 1, excess + m_maxChars / 10),
                       QTextCursor::KeepAnchor);
    cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    cursor.movePosition(QTextCursor::NextCharacter, QTextCursor::KeepAnchor);
    m_droppedChars += cursor.selectionEnd() - cursor.selectionStart();
    cursor.removeSelectedText();
    updateDroppedBanner();
}

void LogView::updateDroppedBanner() {
    m_droppedBanner->setVisible(m_droppedChars > 0);
    if (m_droppedChars > 0)
        m_droppedBanner->setText(
            tr("Only the latest %1 characters are shown; %2 earlier characters were dropped from "
               "the view. Save the log to get all of it.")
                .arg(QLocale().toString(m_maxChars), QLocale().toString(m_droppedChars)));
}

void LogView::onScrolled() {
    if (m_adjustingScroll)
        return;
    const QScrollBar* bar = m_editor->verticalScrollBar();
    const bool atEnd = bar->value() >= bar->maximum();
    if (atEnd != m_following)
        setFollowing(atEnd);
}

void LogView::setFollowing(bool follow) {
    if (m_following == follow)
        return;
    m_following = follow;
    if (follow) {
        m_adjustingScroll = true;
        m_editor->verticalScrollBar()->setValue(m_editor->verticalScrollBar()->maximum());
        m_adjustingScroll = false;
    }
    Q_EMIT followingChanged(follow);
}

void LogView::setPaused(bool paused) {
    if (m_paused == paused)
        return;
    m_paused = paused;
    if (!paused)
        flush();
    Q_EMIT pausedChanged(paused);
}

void LogView::showFindBar() {
    m_findBar->show();
    m_findEdit->setFocus();
    m_findEdit->selectAll();
}

bool LogView::find(const QString& text, bool backward, bool caseSensitive) {
    if (text.isEmpty())
        return false;
    QTextDocument::FindFlags flags;
    if (backward)
        flags |= QTextDocument::FindBackward;
    if (caseSensitive)
        flags |= QTextDocument::FindCaseSensitively;
    if (m_editor->find(text, flags)) {
        setFollowing(false);
        return true;
    }
    // Wrap around once.
    QTextCursor c = m_editor->textCursor();
    c.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
    m_editor->setTextCursor(c);
    const bool found = m_editor->find(text, flags);
    if (found)
        setFollowing(false);
    return found;
}

void LogView::findFromBar(bool backward) {
    const bool found = find(m_findEdit->text(), backward, m_findCase->isChecked());
    m_findStatus->setText(found || m_findEdit->text().isEmpty() ? QString() : tr("Not found"));
}

bool LogView::saveTo(const QString& path, QString* error) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = file.errorString();
        return false;
    }
    file.write(m_editor->toPlainText().toUtf8());
    if (!file.commit()) {
        *error = file.errorString();
        return false;
    }
    return true;
}

} // namespace runbox::console
