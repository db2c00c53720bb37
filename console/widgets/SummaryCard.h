#pragma once

#include <QFrame>

class QLabel;

namespace runbox::console {

/// A small framed tile of the overview: an icon, a title, one big value and a detail line.
class SummaryCard final : public QFrame {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SummaryCard)
public:
    SummaryCard(const QString& title, const QString& iconPath, QWidget* parent = nullptr);

    /// @p color tints the value (invalid: the palette's text colour).
    void setValue(const QString& value, const QString& detail = {}, const QColor& color = {});
    QString value() const;
    QString detail() const;

private:
    QLabel* m_value;
    QLabel* m_detail;
};

} // namespace runbox::console
