#pragma once

#include "agent/config/ConfigValues.h"

#include <QString>

namespace runbox::config {

/// "integer", "boolean", "path"… (docs).
QString typeName(OptionType type);
/// The section heading of @p group.
QString groupTitle(OptionGroup group);

/// `runbox-agent --help`: every row of configTable() with its flag, variable, config-file key,
/// default and unit, grouped as in docs/configuration.md, then the action flags.
QString usageText();

/// `runbox-agent --print-config`: one line per option, `name = value  # source`, the source being
/// "default", "env RUNBOX_X", "flag --x" or "file <path>".
QString printConfigText(const ConfigValues& values);

/// `runbox-agent --help-markdown`: docs/configuration.md, the table as Markdown. Depends on the
/// table only (not on the environment), so the checked-in file can be compared with it.
QString markdownReference();

/// `runbox-agent --help-conf`: an agent.conf (INI) holding every agent.conf key of the table
/// (test-only rows left out), each commented out at its default under its help text, grouped as
/// in docs/configuration.md. installer/agent.conf is this text (test_config_doc checks it).
QString confTemplate();

} // namespace runbox::config
