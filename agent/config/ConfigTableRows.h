#pragma once

#include "agent/config/ConfigTable.h"

/// Parts of configTable() kept in their own files (internal to runbox_config).
namespace runbox::config {

/// The TLS and unix-socket listener rows (OptionGroup::General), Key::ListenTls..
/// Key::ListenUnixGroup in Key order.
QList<OptionSpec> tlsOptionRows();
/// The science-environment rows (OptionGroup::General), Key::EnvWheelhouse..
/// Key::EnvIndexPrivateCidrs in Key order.
QList<OptionSpec> environmentOptionRows();
/// The pool-host rows (OptionGroup::Pool), Key::Pool..Key::ExitWhenIdleS in Key order.
QList<OptionSpec> poolOptionRows();
/// The NPU rows (OptionGroup::Npu), Key::NpuDeviceRoot..Key::NpuChips in Key order.
QList<OptionSpec> npuOptionRows();

} // namespace runbox::config
