#pragma once

#include <QAbstractListModel>
#include <QStringList>

#include <functional>

namespace runbox::console {

/// An editable list of policy entries (allowed domains, private CIDRs), each validated as it is
/// typed by a Validator (the shared NetworkPolicyGrammar) and marked when refused — by the
/// grammar here or by the agent on Apply.
class EntryListModel final : public QAbstractListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EntryListModel)
public:
    /// Returns the translated reason @p entry is refused, or an empty string when it is fine.
    using Validator = std::function<QString(const QString& entry)>;
    enum Role {
        ErrorRole = Qt::UserRole + 1, ///< QString: why the entry is refused (empty: fine)
    };

    explicit EntryListModel(Validator validator, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;

    /// Replaces every entry (and forgets what the agent refused); the new list is the baseline
    /// isModified() compares against.
    void setEntries(const QStringList& entries);
    QStringList entries() const;
    /// Appends @p entry (trimmed) and returns its row.
    int addEntry(const QString& entry);
    /// Appends every non-empty line of @p text (lines starting with '#' are comments; commas
    /// and whitespace also separate entries). Returns how many were added.
    int addLines(const QString& text);
    /// Marks the entry equal to @p entry as refused by the agent with @p message; returns
    /// whether one was found.
    bool markRefused(const QString& entry, const QString& message);
    /// Rows whose entry is refused.
    QList<int> invalidRows() const;
    /// Whether the entries differ from the last setEntries().
    bool isModified() const { return entries() != m_baseline; }

Q_SIGNALS:
    /// The entries or their validity changed.
    void entriesChanged();

private:
    struct Entry {
        QString text;
        QString error;      ///< the validator's
        QString agentError; ///< the agent's, until the entry is edited
    };
    QString errorOf(const Entry& e) const;

    Validator m_validator;
    QList<Entry> m_entries;
    QStringList m_baseline;
};

} // namespace runbox::console
