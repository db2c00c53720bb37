#include "console/pages/EnvironmentDialogs.h"

#include "console/api/EnvironmentInfo.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
QLabel* problemLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setStyleSheet(QStringLiteral("color: #c62828;"));
    return label;
}
} // namespace

NewEnvironmentDialog::NewEnvironmentDialog(const QJsonObject& health, QWidget* parent)
    : QDialog(parent), m_name(new QLineEdit(this)), m_language(new QComboBox(this)),
      m_problems(problemLabel(this)) {
    setWindowTitle(tr("New environment"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/environment.svg")));
    m_name->setObjectName(QStringLiteral("environmentName"));
    m_name->setPlaceholderText(tr("e.g. analysis-2026"));
    m_name->setMaxLength(80);
    m_language->setObjectName(QStringLiteral("environmentLanguage"));
    m_language->addItem(EnvironmentInfo::languageLabel(QStringLiteral("python")),
                        QStringLiteral("python"));
    m_language->addItem(EnvironmentInfo::languageLabel(QStringLiteral("r")), QStringLiteral("r"));
    // Grey a language whose provisioner the agent says it lacks (python: venv, r: r-lib).
    const QJsonObject provisioners = health.value(QLatin1String("scientificEnvs"))
                                         .toObject()
                                         .value(QLatin1String("provisioners"))
                                         .toObject();
    auto* model = qobject_cast<QStandardItemModel*>(m_language->model());
    const QList<QPair<QString, QString>> needs{{QStringLiteral("python"), QStringLiteral("venv")},
                                               {QStringLiteral("r"), QStringLiteral("r-lib")}};
    for (const auto& [language, provisioner] : needs) {
        const QJsonObject p = provisioners.value(provisioner).toObject();
        if (!model || p.isEmpty() || p.value(QLatin1String("available")).toBool(true))
            continue;
        QStandardItem* item = model->item(m_language->findData(language));
        item->setEnabled(false);
        item->setToolTip(
            tr("Not available on this agent: %1").arg(p.value(QLatin1String("reason")).toString()));
    }

    auto* hint = new QLabel(tr("The first revision is a bare environment; install packages into "
                               "it afterwards. Its build log opens in a window of its own."),
                            this);
    hint->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Language:"), m_language);
    auto* box = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_create = box->addButton(tr("&Create"), QDialogButtonBox::AcceptRole);
    m_create->setDefault(true);
    connect(box, &QDialogButtonBox::accepted, this, [this] {
        if (problems().isEmpty())
            accept();
    });
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(hint);
    layout->addWidget(m_problems);
    layout->addWidget(box);
    connect(m_name, &QLineEdit::textChanged, this, &NewEnvironmentDialog::updateState);
    connect(m_language, &QComboBox::currentIndexChanged, this, &NewEnvironmentDialog::updateState);
    updateState();
    resize(460, sizeHint().height());
}

QString NewEnvironmentDialog::name() const {
    return m_name->text().trimmed();
}

QString NewEnvironmentDialog::language() const {
    return m_language->currentData().toString();
}

void NewEnvironmentDialog::setName(const QString& name) {
    m_name->setText(name);
}

QStringList NewEnvironmentDialog::problems() const {
    QStringList out;
    if (const QString p = EnvironmentInfo::nameProblem(name()); !p.isEmpty())
        out << p;
    return out;
}

void NewEnvironmentDialog::updateState() {
    const QStringList p = problems();
    // An empty name is not an error yet: it only keeps Create disabled.
    m_problems->setText(m_name->text().isEmpty() ? QString() : p.join(u'\n'));
    m_problems->setVisible(!m_problems->text().isEmpty());
    m_create->setEnabled(p.isEmpty());
}

PackagesDialog::PackagesDialog(Mode mode, const QString& environmentName,
                               const QStringList& installed, QWidget* parent)
    : QDialog(parent), m_text(new QPlainTextEdit(this)), m_preview(new QLabel(this)),
      m_problems(problemLabel(this)) {
    const bool install = mode == Mode::Install;
    setWindowTitle(install ? tr("Install packages into %1").arg(environmentName)
                           : tr("Uninstall packages from %1").arg(environmentName));
    setWindowIcon(QIcon(QStringLiteral(":/icons/environment.svg")));
    auto* intro = new QLabel(
        install ? tr("Packages to install, one per line or separated by spaces, with optional "
                     "version constraints (numpy, pandas>=2,<3). A new revision is built with "
                     "the packages of the current one plus these; running executions keep theirs.")
                : tr("Packages to remove, one per line or separated by spaces. A new revision is "
                     "built without them; running executions keep theirs."),
        this);
    intro->setWordWrap(true);
    m_text->setObjectName(QStringLiteral("environmentPackages"));
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setPlaceholderText(install ? QStringLiteral("numpy\npandas>=2,<3")
                                       : installed.value(0, QStringLiteral("numpy")));
    m_text->setMinimumHeight(140);
    m_preview->setWordWrap(true);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* box = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_submit =
        box->addButton(install ? tr("&Install") : tr("&Uninstall"), QDialogButtonBox::AcceptRole);
    m_submit->setDefault(true);
    connect(box, &QDialogButtonBox::accepted, this, [this] {
        if (problems().isEmpty())
            accept();
    });
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    if (!installed.isEmpty()) {
        auto* current = new QLabel(
            tr("In the current revision: %1").arg(installed.join(QStringLiteral(", "))), this);
        current->setWordWrap(true);
        current->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(current);
    }
    layout->addWidget(m_text, 1);
    layout->addWidget(m_preview);
    layout->addWidget(m_problems);
    layout->addWidget(box);
    connect(m_text, &QPlainTextEdit::textChanged, this, &PackagesDialog::updateState);
    updateState();
    resize(520, 360);
}

QStringList PackagesDialog::packages() const {
    return EnvironmentInfo::parsePackages(m_text->toPlainText());
}

void PackagesDialog::setText(const QString& text) {
    m_text->setPlainText(text);
}

QStringList PackagesDialog::problems() const {
    return EnvironmentInfo::packageProblems(packages());
}

void PackagesDialog::updateState() {
    const QStringList list = packages();
    const QStringList p = problems();
    m_preview->setText(list.isEmpty() ? QString()
                                      : tr("Will send: %1").arg(list.join(QStringLiteral(" · "))));
    m_problems->setText(list.isEmpty() ? QString() : p.join(u'\n'));
    m_problems->setVisible(!m_problems->text().isEmpty());
    m_submit->setEnabled(p.isEmpty());
}

} // namespace runbox::console
