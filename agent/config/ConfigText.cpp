#include "agent/config/ConfigText.h"

#include <algorithm>
#include <limits>

namespace runbox::config {

namespace {

constexpr OptionGroup kGroups[] = {
    OptionGroup::General, OptionGroup::SandboxUids, OptionGroup::Light,   OptionGroup::Pool,
    OptionGroup::Quotas,  OptionGroup::Npu,         OptionGroup::TestOnly};

QString latin(const char* text) {
    return text ? QString::fromUtf8(text) : QString();
}

/// "integer 1..64", "choice: queue, refuse", "path"…
QString typeText(const OptionSpec& spec) {
    switch (spec.type) {
    case OptionType::Integer:
        if (spec.max == std::numeric_limits<qint64>::max())
            return QStringLiteral("integer ≥ %1").arg(spec.min);
        return QStringLiteral("integer %1..%2").arg(spec.min).arg(spec.max);
    case OptionType::Choice:
        return QStringLiteral("choice: %1").arg(spec.choices.join(QStringLiteral(", ")));
    default:
        return typeName(spec.type);
    }
}

QString defaultText(const OptionSpec& spec) {
    if (spec.defaultNote)
        return latin(spec.defaultNote);
    const QString value = latin(spec.defaultValue);
    return value.isEmpty() ? QStringLiteral("(none)") : value;
}

/// Where an option can be set, for --help: "--listen HOST:PORT, RUNBOX_LISTEN, agent.conf listen".
QString placesText(const OptionSpec& spec) {
    QStringList places;
    if (spec.flag)
        places << latin(spec.flag) + QLatin1Char(' ') + latin(spec.metaVar);
    if (spec.envVar)
        places << latin(spec.envVar);
    if (spec.fileKey)
        places << QStringLiteral("agent.conf %1").arg(latin(spec.fileKey));
    return places.join(QStringLiteral(", "));
}

/// @p text wrapped at @p width columns, each line starting with @p indent.
QString wrap(const QString& text, const QString& indent, int width = 100) {
    QString out;
    QString line = indent;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (line.size() > indent.size() && line.size() + 1 + word.size() > width) {
            out += line + QLatin1Char('\n');
            line = indent;
        }
        if (line.size() > indent.size())
            line += QLatin1Char(' ');
        line += word;
    }
    return out + line + QLatin1Char('\n');
}

/// @p text for a Markdown table cell: pipes and angle brackets (`<state-dir>`) escaped.
QString cell(QString text) {
    text.replace(QLatin1Char('|'), QStringLiteral("\\|"));
    text.replace(QLatin1Char('<'), QStringLiteral("\\<"));
    text.replace(QLatin1Char('>'), QStringLiteral("\\>"));
    return text;
}

QString code(const char* text) {
    return text ? QStringLiteral("`%1`").arg(latin(text)) : QStringLiteral("—");
}

} // namespace

QString typeName(OptionType type) {
    switch (type) {
    case OptionType::Integer:
        return QStringLiteral("integer");
    case OptionType::Boolean:
        return QStringLiteral("boolean");
    case OptionType::String:
        return QStringLiteral("string");
    case OptionType::Path:
        return QStringLiteral("path");
    case OptionType::PathList:
        return QStringLiteral("path list");
    case OptionType::Choice:
        return QStringLiteral("choice");
    case OptionType::HostPort:
        return QStringLiteral("host:port");
    }
    return {};
}

QString groupTitle(OptionGroup group) {
    switch (group) {
    case OptionGroup::General:
        return QStringLiteral("General");
    case OptionGroup::SandboxUids:
        return QStringLiteral("Strong-tier sandbox uids (privileged agent)");
    case OptionGroup::Light:
        return QStringLiteral("Light tier");
    case OptionGroup::Pool:
        return QStringLiteral("Pool host (docs/contracts.md \"Pool hosts\")");
    case OptionGroup::Quotas:
        return QStringLiteral("Quotas (seeded on first start only)");
    case OptionGroup::Npu:
        return QStringLiteral("NPU");
    case OptionGroup::TestOnly:
        return QStringLiteral("Test-only switches");
    }
    return {};
}

QString usageText() {
    QString out = QStringLiteral(
        "Usage: runbox-agent [options]\n\n"
        "Each setting below comes from, highest first: its flag, its environment variable, its\n"
        "key in agent.conf (INI; --config FILE, else $CONFIGURATION_DIRECTORY/agent.conf, else\n"
        "<state-dir>/agent.conf), its default. A variable set to \"\" counts as unset (quota\n"
        "variables excepted). A bad value, or a config file that cannot be read, is malformed\n"
        "or holds an unknown key, stops the agent (exit status 2) with a message naming it.\n"
        "docs/configuration.md holds the same table.\n\n"
        "Actions:\n"
        "  --help           print this text and exit\n"
        "  --print-config   print every setting's effective value and its source, and exit\n"
        "                   without starting anything\n"
        "  --help-markdown  print the settings as Markdown (docs/configuration.md) and exit\n"
        "  --help-conf      print an agent.conf with every key commented out and exit\n"
        "  --rotate-metrics-token\n"
        "                   replace <state-dir>/metrics.token, the bearer token of GET /metrics\n"
        "                   (docs/metrics.md), and exit; a running agent takes the new one at\n"
        "                   its next scrape\n"
        "  --print-fingerprint\n"
        "                   print the SHA-256 fingerprint (AB:CD:...) of the TLS listener's\n"
        "                   certificate (--tls-cert, else <state-dir>/tls-cert.pem) and exit;\n"
        "                   clients pin it (docs/contracts.md \"TLS and pinning\")\n");
    for (const OptionGroup group : kGroups) {
        out += QLatin1Char('\n') + groupTitle(group) + QStringLiteral(":\n");
        for (const OptionSpec& spec : configTable()) {
            if (spec.group != group)
                continue;
            out += QStringLiteral("  ") + placesText(spec) + QLatin1Char('\n');
            QString details = latin(spec.help) + QStringLiteral(" [%1").arg(typeText(spec));
            if (*spec.unit)
                details += QStringLiteral(", %1").arg(latin(spec.unit));
            details += QStringLiteral("; default: %1]").arg(defaultText(spec));
            out += wrap(details, QStringLiteral("      "));
        }
    }
    return out;
}

QString printConfigText(const ConfigValues& values) {
    int width = 0;
    for (const OptionSpec& spec : configTable())
        width = std::max(width, int(qstrlen(spec.name)));
    QString out = QStringLiteral("# runbox-agent %1: effective settings (flag > env > %2 > "
                                 "default)\n")
                      .arg(QStringLiteral(RUNBOX_VERSION), values.configFilePath());
    for (const OptionSpec& spec : configTable()) {
        QString line = QStringLiteral("%1 = %2").arg(latin(spec.name).leftJustified(width),
                                                     values.displayValue(spec.key));
        line += QStringLiteral("  # ") + values.describeSource(spec.key);
        if (spec.flags & kSeedOnly)
            line += QStringLiteral(" (quota seed: a stored value wins)");
        if (spec.flags & kTestOnly)
            line += QStringLiteral(" (test only)");
        out += line + QLatin1Char('\n');
    }
    return out;
}

QString markdownReference() {
    QString out = QStringLiteral(
        "# Configuration\n\n"
        "<!-- Generated from agent/config/ConfigTable.cpp by `runbox-agent --help-markdown`; "
        "do not edit. Regenerate with `cmake --build build --target config-doc`; the ctest "
        "`test_config_doc` fails while this file is out of date. -->\n\n"
        "Every setting of `runbox-agent`, from one table (`agent/config/ConfigTable.cpp`). Each "
        "comes from, highest first: its command-line flag, its environment variable, its key "
        "in `agent.conf` (INI, `key=value` at the top level, `;` comments), its default. The "
        "file is the one `--config FILE` (or `RUNBOX_CONFIG`) names, else "
        "`$CONFIGURATION_DIRECTORY/agent.conf` when systemd sets that variable "
        "(`ConfigurationDirectory=`, `docs/service.md`), else `<state-dir>/agent.conf`. A "
        "variable or key set to an empty string counts as unset, except the quota variables, "
        "where it is an error. A bad value, or a config file that cannot be read, is malformed "
        "or holds a key that is no setting, stops the agent at start-up (exit status 2) with a "
        "message naming the flag, variable, key or line.\n\n"
        "- `runbox-agent --help` lists the same settings.\n"
        "- `runbox-agent --print-config` prints each setting's effective value and where it "
        "came from (default, env, flag, file) and exits without starting anything.\n"
        "- `runbox-agent --rotate-metrics-token` replaces `<state-dir>/metrics.token`, the "
        "bearer token of `GET /metrics` (docs/metrics.md), and exits; a running agent takes "
        "the new one at its next scrape.\n"
        "- `runbox-agent --print-fingerprint` prints the SHA-256 fingerprint (`AB:CD:...`) of the "
        "TLS listener's certificate (`tlsCert`, else the one generated in the state directory) "
        "and exits; clients pin it (docs/contracts.md \"TLS and pinning\").\n\n"
        "The quota settings are seeds: on first start (or when an upgrade adds a field) the "
        "agent stores them; afterwards the stored values, changed through "
        "`PUT /v1/settings/quotas`, win and a variable that differs is ignored with a warning. "
        "0 means unlimited.\n");
    for (const OptionGroup group : kGroups) {
        out += QStringLiteral("\n## %1\n\n").arg(groupTitle(group));
        if (group == OptionGroup::TestOnly)
            out += QStringLiteral("These exist for the test suites; never set them on a real "
                                  "host.\n\n");
        out += QStringLiteral("| Name | Flag | Environment | agent.conf | Type | Unit | "
                              "Default | Description |\n"
                              "|---|---|---|---|---|---|---|---|\n");
        for (const OptionSpec& spec : configTable()) {
            if (spec.group != group)
                continue;
            const QString flag =
                spec.flag ? QStringLiteral("`%1 %2`").arg(latin(spec.flag), latin(spec.metaVar))
                          : QStringLiteral("—");
            const QString def = spec.defaultNote ? cell(latin(spec.defaultNote))
                                                 : QStringLiteral("`%1`").arg(defaultText(spec));
            out += QStringLiteral("| `%1` | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
                       .arg(latin(spec.name), cell(flag), code(spec.envVar), code(spec.fileKey),
                            cell(typeText(spec)), *spec.unit ? latin(spec.unit) : QString(), def,
                            cell(latin(spec.help)));
        }
    }
    return out;
}

namespace {
/// @p text as `; ` comment lines (the INI comment QSettings and ConfigValues accept; `#` is not
/// one) of at most 96 columns, words kept whole.
QString commentBlock(const QString& text) {
    QString out;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > 94) {
            out += QStringLiteral("; ") + line + QLatin1Char('\n');
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        out += QStringLiteral("; ") + line + QLatin1Char('\n');
    return out;
}
} // namespace

QString confTemplate() {
    QString out = commentBlock(
        QStringLiteral("runbox-agent configuration (INI: key = value at the top level, ';' "
                       "starts a comment). Every key is commented out with its default: uncomment "
                       "and edit one to change it. A flag or RUNBOX_* variable of the same setting "
                       "wins over this file; a bad value stops the agent at start-up (exit status "
                       "2). Generated from the configuration table by `runbox-agent --help-conf`; "
                       "/usr/share/doc/runbox-agent/configuration.md.gz explains each setting."));
    for (const OptionGroup group : kGroups) {
        if (group == OptionGroup::TestOnly)
            continue;
        bool first = true;
        for (const OptionSpec& spec : configTable()) {
            if (spec.group != group || !spec.fileKey || (spec.flags & kTestOnly))
                continue;
            if (first)
                out += QStringLiteral("\n;; %1\n").arg(groupTitle(group));
            first = false;
            QString about = latin(spec.help);
            about += QStringLiteral(" Type: %1").arg(typeText(spec));
            if (*spec.unit)
                about += QStringLiteral(", unit: %1").arg(latin(spec.unit));
            about += QLatin1Char('.');
            if (spec.defaultNote)
                about += QStringLiteral(" Default: %1.").arg(latin(spec.defaultNote));
            if (spec.flags & kSeedOnly)
                about += QStringLiteral(" A quota seed: read on first start only, the stored "
                                        "value (PUT /v1/settings/quotas) wins afterwards.");
            out += QLatin1Char('\n') + commentBlock(about);
            // No trailing blank after an empty default.
            const QString line =
                QStringLiteral(";%1 = %2").arg(latin(spec.fileKey), latin(spec.defaultValue));
            out += line.trimmed() + QLatin1Char('\n');
        }
    }
    return out;
}

} // namespace runbox::config
