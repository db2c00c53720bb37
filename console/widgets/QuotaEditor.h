#pragma once

#include "console/api/QuotaValues.h"

#include <QWidget>

class QAbstractSpinBox;
class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace runbox::console {

/// Edits one quota: bytes in GiB with two decimals (GiB = 2^30 bytes), timeouts in seconds,
/// CPU in cores with three decimals (stored as millicores), counts as whole numbers; each with an
/// "Unlimited" box meaning 0. The exact stored value is shown beside the editor, and is returned
/// unchanged until the operator edits the field — so a byte count that is not a whole hundredth of
/// a GiB survives Apply untouched.
class QuotaEditor final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QuotaEditor)
public:
    explicit QuotaEditor(const QuotaField& field, QWidget* parent = nullptr);

    const QuotaField& field() const { return m_field; }
    /// Shows @p value (bytes, ms or count; 0 = unlimited) as the unedited value.
    void setValue(qint64 value);
    /// The value in the field's unit (0 = unlimited).
    qint64 value() const;
    bool isUnlimited() const;
    void setUnlimited(bool unlimited);
    /// Sets the editor's number in its display unit (GiB, seconds, count), as a user would.
    void setDisplayNumber(double number);

Q_SIGNALS:
    void valueChanged();

private:
    void onEdited();
    void updateExactLabel();

    QuotaField m_field;
    QDoubleSpinBox* m_gib = nullptr; ///< GiB, or cores for a Millicores field
    QSpinBox* m_number = nullptr;
    QCheckBox* m_unlimited;
    QLabel* m_exact;
    qint64 m_original = 0;
    bool m_edited = false;
    bool m_loading = false;
};

} // namespace runbox::console
