#include "agent/npu/WorkloadCatalog.h"

#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

#include <functional>

namespace runbox::npu {

namespace {

constexpr qint64 kMaxCatalogBytes = 1024 * 1024;

/// One `${…}` expression.
struct Expression {
    enum Kind { Workspace, Input, Env } kind = Workspace;
    QString name;
    bool hasDefault = false;
    QString fallback;
};

/// Splits @p text into literal pieces and expressions; calls @p emit for each. False with
/// @p error on an unclosed or unknown expression.
bool walk(const QString& text, const std::function<void(const QString&)>& literal,
          const std::function<void(const Expression&)>& expression, QString* error) {
    static const QRegularExpression inputName(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,63}$"));
    static const QRegularExpression envName(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,127}$"));
    int pos = 0;
    while (pos < text.size()) {
        const int start = text.indexOf(QLatin1String("${"), pos);
        if (start < 0) {
            literal(text.mid(pos));
            break;
        }
        literal(text.mid(pos, start - pos));
        const int end = text.indexOf(QLatin1Char('}'), start + 2);
        if (end < 0) {
            *error = QStringLiteral("unclosed \"${\" in \"%1\"").arg(text);
            return false;
        }
        const QString body = text.mid(start + 2, end - start - 2);
        Expression e;
        if (body == QLatin1String("workspace")) {
            e.kind = Expression::Workspace;
        } else if (body.startsWith(QLatin1String("input:"))) {
            e.kind = Expression::Input;
            e.name = body.mid(6);
            if (!inputName.match(e.name).hasMatch()) {
                *error = QStringLiteral("bad input name in \"${%1}\"").arg(body);
                return false;
            }
        } else if (body.startsWith(QLatin1String("env:"))) {
            e.kind = Expression::Env;
            const QString rest = body.mid(4);
            const int dash = rest.indexOf(QLatin1String(":-"));
            e.name = dash < 0 ? rest : rest.left(dash);
            e.hasDefault = dash >= 0;
            e.fallback = dash < 0 ? QString() : rest.mid(dash + 2);
            if (!envName.match(e.name).hasMatch()) {
                *error = QStringLiteral("bad variable name in \"${%1}\"").arg(body);
                return false;
            }
        } else {
            *error = QStringLiteral("unknown expression \"${%1}\" (known: ${workspace}, "
                                    "${input:NAME}, ${env:NAME[:-default]})")
                         .arg(body);
            return false;
        }
        expression(e);
        pos = end + 1;
    }
    return true;
}

Error misconfigured(const QString& id, const QString& message) {
    return Error{ErrorKind::Internal, QStringLiteral("workload_misconfigured"),
                 QStringLiteral("workload %1: %2").arg(id, message)};
}

} // namespace

QJsonObject Workload::toJson() const {
    QJsonArray chips;
    for (int chip : npuDevices)
        chips.append(chip);
    return {
        {"id", id},
        {"label", label},
        {"description", description},
        {"inputs", QJsonArray::fromStringList(inputs)},
        {"npuDevices", chips},
        {"timeoutMs", timeoutMs > 0 ? QJsonValue(static_cast<double>(timeoutMs)) : QJsonValue()}};
}

QStringList Workload::expand(const QString& workspace, const QMap<QString, QString>& resolvedInputs,
                             const QProcessEnvironment& env, Error* error) const {
    QStringList argv;
    QString failure;
    auto expandOne = [&](const QString& text, QString* out) {
        QString syntax;
        const bool ok = walk(
            text, [&](const QString& piece) { out->append(piece); },
            [&](const Expression& e) {
                switch (e.kind) {
                case Expression::Workspace:
                    out->append(workspace);
                    break;
                case Expression::Input:
                    if (!resolvedInputs.contains(e.name) && failure.isEmpty())
                        failure = QStringLiteral("input %1 was not resolved").arg(e.name);
                    out->append(resolvedInputs.value(e.name));
                    break;
                case Expression::Env:
                    if (e.hasDefault) // shell ":-": unset or empty → the default
                        out->append(env.value(e.name).isEmpty() ? e.fallback : env.value(e.name));
                    else if (env.contains(e.name))
                        out->append(env.value(e.name));
                    else if (failure.isEmpty())
                        failure = QStringLiteral("environment variable %1 is not set").arg(e.name);
                    break;
                }
            },
            &syntax);
        if (!ok && failure.isEmpty())
            failure = syntax;
        return failure.isEmpty();
    };
    QString program;
    if (!expandOne(this->program, &program)) {
        *error = misconfigured(id, failure);
        return {};
    }
    if (!program.startsWith(QLatin1Char('/'))) {
        *error = misconfigured(
            id, QStringLiteral("program \"%1\" is not an absolute path").arg(program));
        return {};
    }
    argv << program;
    for (const QString& arg : args) {
        QString value;
        if (!expandOne(arg, &value)) {
            *error = misconfigured(id, failure);
            return {};
        }
        argv << value;
    }
    return argv;
}

bool WorkloadCatalog::parse(const QByteArray& json, QString* error) {
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = QStringLiteral("not JSON: %1 at offset %2")
                     .arg(parseError.errorString())
                     .arg(parseError.offset);
        return false;
    }
    const QJsonArray entries =
        doc.isArray() ? doc.array() : doc.object().value(QStringLiteral("workloads")).toArray();
    if (!doc.isArray() && !doc.object().value(QStringLiteral("workloads")).isArray()) {
        *error = QStringLiteral("expected {\"workloads\": [...]} or an array");
        return false;
    }
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9][a-z0-9._-]{0,127}$"));
    QList<Workload> workloads;
    QSet<QString> ids;
    for (int i = 0; i < entries.size(); ++i) {
        const QJsonObject entry = entries.at(i).toObject();
        const QString where = QStringLiteral("workload #%1").arg(i);
        Workload w;
        w.id = entry.value(QStringLiteral("id")).toString();
        if (!idPattern.match(w.id).hasMatch()) {
            *error =
                QStringLiteral("%1: id \"%2\" must match ^[a-z0-9][a-z0-9._-]*$").arg(where, w.id);
            return false;
        }
        if (ids.contains(w.id)) {
            *error = QStringLiteral("%1: duplicate id \"%2\"").arg(where, w.id);
            return false;
        }
        ids.insert(w.id);
        w.label = entry.value(QStringLiteral("label")).toString();
        w.description = entry.value(QStringLiteral("description")).toString();
        w.program = entry.value(QStringLiteral("program")).toString();
        if (w.label.isEmpty() || w.program.isEmpty()) {
            *error = QStringLiteral("workload %1: label and program are required").arg(w.id);
            return false;
        }
        const QJsonValue args = entry.value(QStringLiteral("args"));
        if (!args.isUndefined() && !args.isArray()) {
            *error = QStringLiteral("workload %1: args must be an array of strings").arg(w.id);
            return false;
        }
        for (const QJsonValue& arg : args.toArray()) {
            if (!arg.isString()) {
                *error = QStringLiteral("workload %1: args must be an array of strings").arg(w.id);
                return false;
            }
            w.args << arg.toString();
        }
        const QJsonValue timeout = entry.value(QStringLiteral("timeoutMs"));
        if (!timeout.isUndefined()) {
            const double ms = timeout.toDouble(-1);
            if (!timeout.isDouble() || ms <= 0 || ms > 7.0 * 24 * 3600 * 1000 ||
                ms != static_cast<double>(static_cast<qint64>(ms))) {
                *error =
                    QStringLiteral("workload %1: timeoutMs must be a positive integer").arg(w.id);
                return false;
            }
            w.timeoutMs = static_cast<qint64>(ms);
        }
        for (const QJsonValue& chip : entry.value(QStringLiteral("npuDevices")).toArray()) {
            const double id = chip.toDouble(-1);
            if (!chip.isDouble() || id < 0 || id > 1023 || id != static_cast<int>(id)) {
                *error = QStringLiteral("workload %1: npuDevices must be chip logic ids").arg(w.id);
                return false;
            }
            if (!w.npuDevices.contains(static_cast<int>(id)))
                w.npuDevices << static_cast<int>(id);
        }
        std::sort(w.npuDevices.begin(), w.npuDevices.end());
        // Templates: the program may only read the environment; args may use everything.
        QSet<QString> inputs;
        QString syntax;
        bool programOk = true;
        if (!walk(
                w.program, [](const QString&) {},
                [&](const Expression& e) { programOk = programOk && e.kind == Expression::Env; },
                &syntax) ||
            !programOk) {
            *error = QStringLiteral("workload %1: program: %2")
                         .arg(w.id, syntax.isEmpty()
                                        ? QStringLiteral("only ${env:…} may appear in the program")
                                        : syntax);
            return false;
        }
        for (const QString& arg : w.args) {
            if (!walk(
                    arg, [](const QString&) {},
                    [&](const Expression& e) {
                        if (e.kind == Expression::Input)
                            inputs.insert(e.name);
                    },
                    &syntax)) {
                *error = QStringLiteral("workload %1: %2").arg(w.id, syntax);
                return false;
            }
        }
        w.inputs = inputs.values();
        w.inputs.sort();
        workloads.append(w);
    }
    m_workloads = workloads;
    return true;
}

bool WorkloadCatalog::loadFile(const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    const QByteArray data = file.read(kMaxCatalogBytes + 1);
    if (data.size() > kMaxCatalogBytes) {
        *error = QStringLiteral("%1 is larger than 1 MiB").arg(path);
        return false;
    }
    QString parseError;
    if (!parse(data, &parseError)) {
        *error = QStringLiteral("%1: %2").arg(path, parseError);
        return false;
    }
    return true;
}

const Workload* WorkloadCatalog::find(const QString& id) const {
    for (const Workload& w : m_workloads)
        if (w.id == id)
            return &w;
    return nullptr;
}

QJsonArray WorkloadCatalog::toJson() const {
    QJsonArray list;
    for (const Workload& w : m_workloads)
        list.append(w.toJson());
    return list;
}

} // namespace runbox::npu
