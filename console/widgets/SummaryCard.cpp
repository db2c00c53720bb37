#include "console/widgets/SummaryCard.h"

#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QVBoxLayout>

namespace runbox::console {

SummaryCard::SummaryCard(const QString& title, const QString& iconPath, QWidget* parent)
    : QFrame(parent), m_value(new QLabel(this)), m_detail(new QLabel(this)) {
    setFrameShape(QFrame::StyledPanel);
    setObjectName(QStringLiteral("summaryCard"));
    setStyleSheet(QStringLiteral("#summaryCard { background: palette(base); border: 1px solid "
                                 "palette(mid); border-radius: 6px; }"));
    setMinimumWidth(170);
    auto* icon = new QLabel(this);
    icon->setPixmap(QIcon(iconPath).pixmap(18, 18));
    auto* titleLabel = new QLabel(title, this);
    titleLabel->setStyleSheet(QStringLiteral("color: palette(dark); font-weight: 600;"));
    auto* head = new QHBoxLayout;
    head->addWidget(icon);
    head->addWidget(titleLabel, 1);

    QFont f = m_value->font();
    f.setPointSizeF(f.pointSizeF() * 1.35);
    f.setBold(true);
    m_value->setFont(f);
    m_value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setStyleSheet(QStringLiteral("color: palette(dark);"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 10, 12, 10);
    layout->addLayout(head);
    layout->addWidget(m_value);
    layout->addWidget(m_detail);
    layout->addStretch(1);
    setValue(QStringLiteral("—"));
}

void SummaryCard::setValue(const QString& value, const QString& detail, const QColor& color) {
    m_value->setText(value);
    m_value->setStyleSheet(color.isValid() ? QStringLiteral("color: %1;").arg(color.name())
                                           : QString());
    m_detail->setText(detail);
    m_detail->setVisible(!detail.isEmpty());
}

QString SummaryCard::value() const {
    return m_value->text();
}

QString SummaryCard::detail() const {
    return m_detail->text();
}

} // namespace runbox::console
