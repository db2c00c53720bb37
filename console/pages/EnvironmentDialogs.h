#pragma once

#include <QDialog>
#include <QJsonObject>
#include <QStringList>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace runbox::console {

/// Asks for a new science environment's name and language (`POST /v1/environments`). A
/// language whose provisioner the agent reports unavailable (`/v1/health` `scientificEnvs`) is
/// greyed with the agent's reason; the agent decides in the end.
class NewEnvironmentDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NewEnvironmentDialog)
public:
    /// @p health is the agent's last `/v1/health` (may be empty).
    explicit NewEnvironmentDialog(const QJsonObject& health, QWidget* parent = nullptr);

    QString name() const;
    QString language() const;
    void setName(const QString& name);
    /// Problems that keep Create disabled (translated), empty when it can be sent.
    QStringList problems() const;
    QPushButton* createButton() const { return m_create; }

private:
    void updateState();

    QLineEdit* m_name;
    QComboBox* m_language;
    QLabel* m_problems;
    QPushButton* m_create;
};

/// Asks which packages to install into (or uninstall from) an environment: one per line or
/// separated by spaces, `pandas>=2,<3` style constraints, checked as the agent will check them.
class PackagesDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PackagesDialog)
public:
    enum class Mode { Install, Uninstall };

    /// @p installed: the packages of the current revision, offered as a hint (may be empty).
    PackagesDialog(Mode mode, const QString& environmentName, const QStringList& installed,
                   QWidget* parent = nullptr);

    QStringList packages() const;
    void setText(const QString& text);
    QStringList problems() const;
    QPushButton* submitButton() const { return m_submit; }

private:
    void updateState();

    QPlainTextEdit* m_text;
    QLabel* m_preview;
    QLabel* m_problems;
    QPushButton* m_submit;
};

} // namespace runbox::console
