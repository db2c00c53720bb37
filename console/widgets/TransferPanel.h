#pragma once

#include <QHash>
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;
class QVBoxLayout;

namespace runbox::console {

class FileTransfer;

/// The list of file transfers of the Files page: one row per FileTransfer with its direction and
/// names, a progress bar in file bytes, and Cancel while it runs; the outcome replaces Cancel
/// when it ends. "Clear finished" drops the rows (and transfers) that ended. The panel owns the
/// transfers given to it.
class TransferPanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TransferPanel)
public:
    explicit TransferPanel(QWidget* parent = nullptr);

    /// Shows @p transfer (taking ownership); start it afterwards.
    void add(FileTransfer* transfer);
    /// The progress bar of @p transfer (nullptr when it is not shown).
    QProgressBar* progressBar(FileTransfer* transfer) const;
    /// The Cancel button of @p transfer (nullptr when it is not shown).
    QPushButton* cancelButton(FileTransfer* transfer) const;
    /// The outcome line of @p transfer ("" while it runs).
    QString outcomeText(FileTransfer* transfer) const;
    /// Removes the rows of the transfers that ended.
    void clearFinished();
    int count() const { return int(m_rows.size()); }

private:
    struct Row {
        QWidget* widget = nullptr;
        QProgressBar* bar = nullptr;
        QPushButton* cancel = nullptr;
        QLabel* outcome = nullptr;
    };
    void update(FileTransfer* transfer);

    QVBoxLayout* m_list;
    QPushButton* m_clear;
    QHash<FileTransfer*, Row> m_rows;
};

} // namespace runbox::console
