#include "console/widgets/QuotaEditor.h"

#include "console/api/HealthReport.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>

#include <cmath>
#include <limits>

namespace runbox::console {

QuotaEditor::QuotaEditor(const QuotaField& field, QWidget* parent)
    : QWidget(parent), m_field(field), m_unlimited(new QCheckBox(tr("Unlimited"), this)),
      m_exact(new QLabel(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    if (field.unit == QuotaField::Unit::Bytes || field.unit == QuotaField::Unit::Millicores) {
        const bool cores = field.unit == QuotaField::Unit::Millicores;
        m_gib = new QDoubleSpinBox(this);
        m_gib->setDecimals(cores ? 3 : 2);
        m_gib->setRange(cores ? 0.001 : 0.01,
                        cores ? double(field.ceiling) / 1000.0 : bytesToGib(field.ceiling));
        m_gib->setSingleStep(cores ? 0.5 : 1.0);
        m_gib->setSuffix(cores ? tr(" cores") : tr(" GiB"));
        m_gib->setAccelerated(true);
        m_gib->setMinimumWidth(150);
        m_gib->setAlignment(Qt::AlignRight);
        connect(m_gib, &QDoubleSpinBox::valueChanged, this, &QuotaEditor::onEdited);
        layout->addWidget(m_gib);
    } else {
        m_number = new QSpinBox(this);
        const qint64 max =
            field.unit == QuotaField::Unit::Milliseconds ? field.ceiling / 1000 : field.ceiling;
        m_number->setRange(1, int(std::min<qint64>(max, std::numeric_limits<int>::max())));
        if (field.unit == QuotaField::Unit::Milliseconds)
            m_number->setSuffix(tr(" s"));
        m_number->setAccelerated(true);
        m_number->setMinimumWidth(150);
        m_number->setAlignment(Qt::AlignRight);
        connect(m_number, &QSpinBox::valueChanged, this, &QuotaEditor::onEdited);
        layout->addWidget(m_number);
    }
    layout->addWidget(m_unlimited);
    layout->addWidget(m_exact, 1);
    m_exact->setStyleSheet(QStringLiteral("color: palette(dark);"));
    m_exact->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_unlimited, &QCheckBox::toggled, this, &QuotaEditor::onEdited);
    setToolTip(field.help());
}

void QuotaEditor::setValue(qint64 value) {
    m_loading = true;
    m_original = value;
    m_edited = false;
    m_unlimited->setChecked(value == 0);
    if (m_gib) {
        m_gib->setEnabled(value != 0);
        if (value != 0)
            m_gib->setValue(m_field.unit == QuotaField::Unit::Millicores ? double(value) / 1000.0
                                                                         : bytesToGib(value));
    } else {
        m_number->setEnabled(value != 0);
        if (value != 0)
            m_number->setValue(int(m_field.unit == QuotaField::Unit::Milliseconds
                                       ? std::max<qint64>(1, (value + 999) / 1000)
                                       : value));
    }
    m_loading = false;
    updateExactLabel();
}

qint64 QuotaEditor::value() const {
    if (!m_edited)
        return m_original;
    if (m_unlimited->isChecked())
        return 0;
    if (m_gib)
        return m_field.unit == QuotaField::Unit::Millicores
                   ? qint64(std::llround(m_gib->value() * 1000.0))
                   : gibToBytes(m_gib->value());
    const qint64 n = m_number->value();
    return m_field.unit == QuotaField::Unit::Milliseconds ? n * 1000 : n;
}

bool QuotaEditor::isUnlimited() const {
    return m_unlimited->isChecked();
}

void QuotaEditor::setUnlimited(bool unlimited) {
    m_unlimited->setChecked(unlimited);
}

void QuotaEditor::setDisplayNumber(double number) {
    m_unlimited->setChecked(false);
    if (m_gib)
        m_gib->setValue(number);
    else
        m_number->setValue(int(number));
}

void QuotaEditor::onEdited() {
    if (m_loading)
        return;
    m_edited = true;
    if (m_gib)
        m_gib->setEnabled(!m_unlimited->isChecked());
    else
        m_number->setEnabled(!m_unlimited->isChecked());
    updateExactLabel();
    Q_EMIT valueChanged();
}

void QuotaEditor::updateExactLabel() {
    const qint64 v = value();
    if (v == 0) {
        m_exact->setText(tr("0 = no limit"));
        return;
    }
    switch (m_field.unit) {
    case QuotaField::Unit::Bytes:
        m_exact->setText(
            isExactInGib(v)
                ? tr("= %1 bytes").arg(QLocale().toString(v))
                : tr("= %1 bytes (not a whole hundredth of a GiB; kept exactly unless edited)")
                      .arg(QLocale().toString(v)));
        break;
    case QuotaField::Unit::Milliseconds:
        m_exact->setText(tr("= %1").arg(formatDurationMs(v)));
        break;
    case QuotaField::Unit::Millicores:
        m_exact->setText(tr("= %1 millicores (cgroup v2 cpu.max)").arg(QLocale().toString(v)));
        break;
    case QuotaField::Unit::Count:
        m_exact->clear();
        break;
    }
}

} // namespace runbox::console
