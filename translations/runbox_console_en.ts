<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>runbox::NetworkPolicyGrammar</name>
    <message>
        <source>empty host name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IP literals are not allowed; use a domain name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a valid domain name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a single label is not allowed; name a domain such as example.org</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>labels must be letters, digits and inner hyphens, 1-63 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty entry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;/&apos;, &apos;@&apos; and whitespace are not allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&apos;*&apos; is only allowed as a leading &quot;*.&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bad port (must be 1-65535)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an address prefix such as 10.0.0.0/8 or fd00::/8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>enter a host name such as pypi.org or pypi.org:443</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IP addresses are never allowed; egress admits domain names only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no domain is allowed</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentConnection</name>
    <message>
        <source>Disconnected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Reconnecting in %n s</source>
        <translation>
            <numerusform>Reconnecting in %n s</numerusform>
            <numerusform>Reconnecting in %n s</numerusform>
        </translation>
    </message>
    <message>
        <source>Token refused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Incompatible agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disconnected from %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 does not answer like a Runbox agent (HTTP %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent refused the token: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Health check failed (HTTP %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected to %1 (agent %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reconnected to %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Lost connection to %1 (%2); reconnecting in %n s.</source>
        <translation>
            <numerusform>Lost connection to %1 (%2); reconnecting in %n s.</numerusform>
            <numerusform>Lost connection to %1 (%2); reconnecting in %n s.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>no answer within %n s</source>
        <translation>
            <numerusform>no answer within %n s</numerusform>
            <numerusform>no answer within %n s</numerusform>
        </translation>
    </message>
    <message>
        <source>Certificate refused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To trust this agent, compare the fingerprint with the output of runbox-agent --print-fingerprint on its host, then enter it as the agent&apos;s TLS fingerprint (Edit agent).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opening SSH tunnel…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>SSH tunnel failed (%1); retrying in %n s</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>SSH tunnel: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (ssh: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SSH refused: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentListActions</name>
    <message>
        <source>Agents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agents list could not be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agents list was not saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove %1 and forget its token?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent certificate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 presents a certificate no authority vouches for. Its SHA-256 fingerprint is:

%2

Compare it with the output of runbox-agent --print-fingerprint on the agent&apos;s host (or its log). Pin it and connect only if they are the same.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentPage</name>
    <message>
        <source>No agent selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add an agent or pick one in the list on the left, then connect.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not offered by this agent yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 does not offer %2 yet (%3 is not there). The page lights up by itself once the agent is upgraded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentProfile</name>
    <message>
        <source>Give the agent a name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The URL must start with http:// or https://, e.g. http://127.0.0.1:4311.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The URL has no host.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The URL must be the agent&apos;s base address, without a path.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The TLS fingerprint must be the agent&apos;s SHA-256 fingerprint (AB:CD:…, as runbox-agent --print-fingerprint prints it).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A TLS fingerprint needs an https:// URL.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the SSH host.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The SSH host must be a host name or address (no spaces, no leading &apos;-&apos;, no &apos;@&apos;, &apos;:&apos; or &apos;/&apos;).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The SSH user must be a user name (no spaces, no leading &apos;-&apos;).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The SSH port must be between 1 and 65535.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The remote end has no spaces.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The remote socket must be an absolute path, e.g. %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The remote address must be host:port, e.g. %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A TLS fingerprint needs an https:// URL; an SSH profile speaks plain HTTP inside the tunnel.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A unix-socket agent is reached through SSH: choose &quot;Connect through SSH&quot; and give the socket as the remote end.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The name must be 1-64 letters, digits, &apos;_&apos; or &apos;-&apos; (it names the agent in the fleet file that the CLI reads too).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ChipTileDelegate</name>
    <message>
        <source>health ?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1  ·  AI core %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 °C</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HBM %1 / %2 GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HBM —</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In use · %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In use by %1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ConnectionManager</name>
    <message>
        <source>No token is stored for %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: no pool host nonce to derive its token from (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the agent shows none: is it started with --pool-secret-file?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::CreateWorkspaceDialog</name>
    <message>
        <source>Create workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Strong: its own sandbox per execution (one workspace)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Light: own uid, Landlock and rlimits (a batch)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This agent cannot make light workspaces: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Create</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Up to %1 light workspaces at once; past the agent&apos;s capacity the answer says how many were not made.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Strong workspaces are created one at a time.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::EntryListModel</name>
    <message>
        <source>%1   — %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: refused — %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvTableModel</name>
    <message>
        <source>Names are letters, digits and &apos;_&apos;, not starting with a digit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is already set above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentInfo</name>
    <message>
        <source>Building</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Build failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Python</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>R</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name at least one package.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At most %1 packages at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is longer than %2 characters.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot;: pip options are not allowed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; looks like a path or a URL: only package names and version constraints are allowed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a package name with optional version constraints (e.g. numpy, pandas&gt;=2,&lt;3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the environment a name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A name is 1–80 letters, digits, spaces, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;, starting with a letter or digit.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentTableModel</name>
    <message>
        <source>%1 (%2, provisioner %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revisions built so far: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Current revision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last build failure</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentsPage</name>
    <message>
        <source>Environments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Install packages…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Uninstall packages…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>R&amp;un in this environment…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create an environment (its first revision is a bare one)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Build a new revision with more packages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Build a new revision without some packages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the environment and every revision of it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>#</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Packages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Built</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Package</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revisions (newest first):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>science environments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the environments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select an environment to see its revisions and packages.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the revisions: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (current)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (files removed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(bare)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Build execution: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No revision yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revision %1 is building: its packages are listed once it is ready.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revision %1 failed and has no packages: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the packages of %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the packages: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Packages of %1 (%2 in all), SHA-256 %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the environment %1 (%2) and all %3 of its revisions? Executions can no longer use it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Creating the environment %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not create %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This agent cannot uninstall packages yet (%1 is not there).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not install: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not uninstall: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Building a new revision of %1 (execution %2)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not delete %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment %1 deleted.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionFollower</name>
    <message>
        <source>Could not read the execution record: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled from the console (closing the stream of a sync execution makes the agent kill it).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent refused the execution (HTTP %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The connection to the agent broke before the execution ended (%1); a sync execution is killed when its client disconnects.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stream closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent cannot stream this log (HTTP %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent does not know this execution: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the stream ended early</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Log stream interrupted (%1); resuming at byte %2 in %n s.</source>
        <translation>
            <numerusform>Log stream interrupted (%1); resuming at byte %2 in %n s.</numerusform>
            <numerusform>Log stream interrupted (%1); resuming at byte %2 in %n s.</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancel refused (HTTP %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel requested; waiting for the execution to end.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent reported an error in the stream: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionInfo</name>
    <message>
        <source>Queued</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Completed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output limited</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quota exceeded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Setup failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory exceeded</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionLauncher</name>
    <message>
        <source>Not connected to an agent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Creating a workspace…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not create a workspace: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The connection to the agent was closed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting the execution…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent refused the execution (HTTP %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionTableModel</name>
    <message>
        <source>%1 (#%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Execution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chips</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionWindow</name>
    <message>
        <source>Execution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Follow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the end of the log in view</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hold new output aside (bounded) until resumed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find in the log (Ctrl+F)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save log…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel this execution (Ctrl+.)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Field</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bytes up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bytes down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>[… %1 bytes dropped by the agent&apos;s output retention …]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>workspace %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>signal %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chips %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sync stream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Signal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Permission epoch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not reported)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How it ran</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Working directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changed files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Modified</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This agent does not record egress decisions yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No connection was attempted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>— %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, exit code %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, after %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log files (*.log *.txt);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not save: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saving the log…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saving the log… %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This execution runs on a sync stream: closing the window closes the stream and the agent kills the execution. Close anyway?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU (user)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU (system)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Most processes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>environment %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Science environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment revision</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionsPage</name>
    <message>
        <source>Executions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All states</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter by id, workspace or kind (Ctrl+F)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Live</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh the newest executions every few seconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>managed executions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not load executions: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n execution(s) loaded</source>
        <translation>
            <numerusform>%n execution loaded</numerusform>
            <numerusform>%n executions loaded</numerusform>
        </translation>
    </message>
    <message>
        <source> · loading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · scroll down for older ones</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::FileEntry</name>
    <message>
        <source>File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Link</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::FileListModel</name>
    <message>
        <source>%1 → %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Modified</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Permissions</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::FilePreview</name>
    <message>
        <source>Select a text file of at most %1 to preview it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is a link to %2: the console never follows links.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a regular file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is larger than %2: download it to read it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not connected.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not text.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not UTF-8 text.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::FileTransfer</name>
    <message>
        <source>not connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the connection was closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is a folder: only files are downloaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the download ended after %1 of %2 bytes</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::FilesPage</name>
    <message>
        <source>Files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The workspace whose files are shown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New &amp;folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Upload…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Do&amp;wnload…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;name / move…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the parent folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Upload a file into this folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the selected file on this computer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the selected files and folders</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the workspaces: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1:/%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not list %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not make folder %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder %1 made.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not move %1 to %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 moved to %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) not deleted:</source>
        <translation>
            <numerusform>%n item not deleted:</numerusform>
            <numerusform>%n items not deleted:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) deleted.</source>
        <translation>
            <numerusform>%n item deleted.</numerusform>
            <numerusform>%n items deleted.</numerusform>
        </translation>
    </message>
    <message>
        <source>New folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name of the new folder in %1:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename or move</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New path of %1 in the workspace:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete files</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Delete %n item(s)? Folders are deleted with everything in them. This cannot be undone.</source>
        <translation>
            <numerusform>Delete %n item? Folders are deleted with everything in them. This cannot be undone.</numerusform>
            <numerusform>Delete %n items? Folders are deleted with everything in them. This cannot be undone.</numerusform>
        </translation>
    </message>
    <message>
        <source>Upload a file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save %1 as</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetHost</name>
    <message>
        <source>The connection was closed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the chips…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disconnected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unreachable (%1): no chips can be chosen.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unreachable (%1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This agent does not offer GET /v1/npu/chips yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the chips: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No NPU on this host.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No NPU on this host: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n chip(s) usable</source>
        <translation>
            <numerusform>%1 of %n chip usable</numerusform>
            <numerusform>%1 of %n chips usable</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n in use</source>
        <translation>
            <numerusform>%1 · %n in use</numerusform>
            <numerusform>%1 · %n in use</numerusform>
        </translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetHostSection</name>
    <message numerus="yes">
        <source>Run on this host with %n chip(s)…</source>
        <translation>
            <numerusform>Run on this host with %n chip…</numerusform>
            <numerusform>Run on this host with %n chips…</numerusform>
        </translation>
    </message>
    <message>
        <source>Run on this host with selected chips…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetPage</name>
    <message>
        <source>No agent is connected. Connect agents in the list on the left; their chips appear here, grouped by host.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Read every host&apos;s chips again (they are also read every %n second(s))</source>
        <translation>
            <numerusform>Read every host&apos;s chips again (they are also read every %n second)</numerusform>
            <numerusform>Read every host&apos;s chips again (they are also read every %n seconds)</numerusform>
        </translation>
    </message>
    <message>
        <source>Fleet</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n host(s) reachable</source>
        <translation>
            <numerusform>%1 of %n host reachable</numerusform>
            <numerusform>%1 of %n hosts reachable</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n chip(s) usable</source>
        <translation>
            <numerusform>%1 of %n chip usable</numerusform>
            <numerusform>%1 of %n chips usable</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>runbox::console::Format</name>
    <message>
        <source>%1 B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 TiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 PiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::HealthReport</name>
    <message>
        <source>Not known yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unusable: executions are refused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sound</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Sound, with %n warning(s)</source>
        <translation>
            <numerusform>Sound, with %n warning</numerusform>
            <numerusform>Sound, with %n warnings</numerusform>
        </translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unusable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No sandbox can be built, so the agent runs nothing (it never falls back to running code unsandboxed). %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bubblewrap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>version unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every execution is a fresh bubblewrap sandbox (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/proc</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bound from the host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The kernel refused a fresh /proc, so the host&apos;s /proc is bound read-only: code in a sandbox can see the host&apos;s process list and command lines. Cause: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>own PID namespace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each sandbox sees only its own processes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nested user namespaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>blocked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bubblewrap&apos;s --disable-userns stops sandboxed code from creating user namespaces of its own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not blocked by bubblewrap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This bubblewrap is older than 0.8 and has no --disable-userns; only the seccomp filter stops sandboxed code from creating namespaces. Upgrade bubblewrap to restore the second layer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The kernel refused --disable-userns (for example a read-only /proc/sys inside a container); only the seccomp filter stops sandboxed code from creating namespaces.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seccomp</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>filter unavailable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A syscall filter for %1 is loaded into every sandbox; denied calls fail with %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>architecture not reported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent did not say which syscall filter it loads.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Landlock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not reported by this agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Landlock confines light workspaces; this agent does not report its ABI.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unavailable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The kernel has no Landlock: light workspaces cannot be confined and are refused.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ABI %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light workspaces are confined to their home by a Landlock ruleset.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent warning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This agent does not offer egress through the gateway yet: sandboxes have no network at all.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>available</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandboxes reach allowed domains through the gateway when the network policy allows them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent gave no reason.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory bounds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cgroup v2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each execution has its own cgroup; the kernel enforces its memory and process limits. %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>watchdog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No delegated cgroup: the agent samples each execution&apos;s memory and ends it as memory_exceeded past its limit; %1. %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Executions with a memory limit are refused (503 limit_unenforceable). %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cgroup v2 cpu.max</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not enforceable here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leave &quot;CPU per execution&quot; unlimited on this host: executions under a limit are refused. %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool %1: %2 workspaces, capacity %3, %4 free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>?</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::HostBanner</name>
    <message>
        <source>No agent selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::LanguageManager</name>
    <message>
        <source>System language</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::LogDownloader</name>
    <message>
        <source>Not connected.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
[… %1 bytes dropped by retention …]
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent did not send the log (HTTP %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::LogView</name>
    <message>
        <source>Match case</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No output yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text in the log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close the find bar (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only the latest %1 characters are shown; %2 earlier characters were dropped from the view. Save the log to get all of it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not found</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::MainWindow</name>
    <message>
        <source>Runbox Console</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Double-click an agent to connect. Several can be connected at once; the pages show the selected one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Add agent…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Edit agent…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remove agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Disconnect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New run…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About Runbox Console</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Main</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect to an agent first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Execution started.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Execution started on a sync stream (this agent has no managed executions yet): keep its window open while it runs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The new language applies when the console restarts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About Runbox Console</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens: system keychain</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens: this session only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent went away before the run started.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h3&gt;Runbox Console %1&lt;/h3&gt;&lt;p&gt;The operators&apos; desktop console for Runbox agents: sandbox health, quotas, network policy, Ascend NPUs, executions and science environments.&lt;/p&gt;&lt;p&gt;Shortcuts: F5 refresh · Ctrl+F find · Ctrl+R new run · Ctrl+. cancel a run · Ctrl+1…9 pages.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::NetworkPolicyPage</name>
    <message>
        <source>Network policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;None — sandboxes have no network at all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Domain allowlist — only the names below, through the egress gateway</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed domains</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste lines…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>host, *.host (subdomains at any depth), host:port, *.host:port. IP addresses are never allowed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Private networks allowed (CIDR)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty by default. The explicit door to an internal mirror: the gateway refuses private, loopback and link-local addresses unless they are inside one of these.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Would this host be allowed?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. files.pythonhosted.org:443</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Revert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>network policies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the network policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Current revision: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies).</source>
        <translation>
            <numerusform>%n entry.</numerusform>
            <numerusform>%n entries.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies), %1 refused — hover a marked entry to see why.</source>
        <translation>
            <numerusform>%n entry, %1 refused — hover a marked entry to see why.</numerusform>
            <numerusform>%n entries, %1 refused — hover a marked entry to see why.</numerusform>
        </translation>
    </message>
    <message>
        <source>Type a host name to check it against the policy as edited.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refused: mode None allows no network at all.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed on port %1 only, by %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allowed by %1 (if it resolves to a public address or to one inside the private networks).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refused: no domain is allowed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refused: no entry matches %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste domains</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One entry per line (commas and spaces also separate entries; lines starting with # are ignored).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add entries</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies) added.</source>
        <translation>
            <numerusform>%n entry added.</numerusform>
            <numerusform>%n entries added.</numerusform>
        </translation>
    </message>
    <message>
        <source>Fix or remove the marked entries first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A domain allowlist needs at least one entry.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent refused the policy (HTTP %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network policy applied: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::NewEnvironmentDialog</name>
    <message>
        <source>New environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. analysis-2026</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not available on this agent: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The first revision is a bare environment; install packages into it afterwards. Its build log opens in a window of its own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Create</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuChip</name>
    <message>
        <source>%1 is not supported: only the Ascend 910 series can be selected.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This chip</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The probe sandbox could not use this chip.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>execution %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>broker job %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuChipModel</name>
    <message>
        <source>Chip %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chip %1 (NPU %2, die %3): %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Probe: usable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In use now by a run or job on this agent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In use now by %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuPage</name>
    <message>
        <source>NPU chips</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re-&amp;probe</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Probe every chip again in a one-shot sandbox (may take a while)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select all usable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear selection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run with selected chips…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Probing every chip in a one-shot sandbox…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ascend NPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the chips</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chips probed again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No NPU on this host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent found no Ascend chip.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 chips usable · source: %3 · read %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click a usable chip to select it; hover a chip to see its details.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chip %1 — %2, NPU %3 die %4, health %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1 W</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usable: the last probe could open it inside a sandbox.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not usable: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>&amp;Run with %n selected chip(s)…</source>
        <translation>
            <numerusform>&amp;Run with %n selected chip…</numerusform>
            <numerusform>&amp;Run with %n selected chips…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>runbox::console::OverviewPage</name>
    <message>
        <source>Overview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Egress</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Executions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NPU chips</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandbox conclusion</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runbox %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Protocol %1 · up %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clock offset to this host: %1 (compensated)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>—</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disk use not reported by this agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 queued</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default timeout %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>output kept up to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>languages: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Managed executions are not offered by this agent yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1+</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This agent does not offer Ascend NPUs yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No NPU on this host.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 usable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::PackagesDialog</name>
    <message>
        <source>Install packages into %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Uninstall packages from %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Packages to install, one per line or separated by spaces, with optional version constraints (numpy, pandas&gt;=2,&lt;3). A new revision is built with the packages of the current one plus these; running executions keep theirs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Packages to remove, one per line or separated by spaces. A new revision is built without them; running executions keep theirs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Uninstall</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In the current revision: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Will send: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ProfileDialog</name>
    <message>
        <source>Add agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token for %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. gpu-node-3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>contents of agent.token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;URL:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Token:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The token is kept in the system keychain. Where no keychain service is reachable it is kept for this session only, never in a file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste the agent&apos;s token (its agent.token file, or a workspace token).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A token has no spaces.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>https:// agents: the SHA-256 fingerprint of its certificate, from runbox-agent --print-fingerprint on the agent&apos;s host. Empty: only a certificate your system trusts is accepted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TLS &amp;fingerprint:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect through &amp;SSH</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs your own ssh (your ssh_config, keys and agent; never a password prompt) with a local port forward to the agent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ssh&apos;s default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent&apos;s unix socket</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent&apos;s TCP address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SSH &amp;host:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SSH &amp;user:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SSH &amp;port:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remote end:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The remote socket must be an absolute path, e.g. %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The remote address must be host:port, e.g. %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::ProfileListModel</name>
    <message>
        <source>%1
%2
%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not connected</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotaEditor</name>
    <message>
        <source>Unlimited</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>0 = no limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>= %1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>= %1 bytes (not a whole hundredth of a GiB; kept exactly unless edited)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>= %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> cores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>= %1 millicores (cgroup v2 cpu.max)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotaValues</name>
    <message>
        <source>(unset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retained output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Upload per file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Upload per request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Maximum timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Concurrent executions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disk a workspace may use (allocated blocks); an execution that grows past it ends as quota_exceeded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output kept per execution: head and tail are kept around a marker, the run never fails for it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Largest single file accepted by the file API.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Largest upload request accepted by the file API.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timeout of an execution that does not ask for one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Longest timeout an execution may ask for.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Executions running at once on this host; later ones queue.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot be negative.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is above the largest value the agent accepts (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The default timeout must be limited and no longer than the maximum timeout.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 → %3, by %4, %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory per execution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processes per execution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU per execution</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU time one execution may use per second, in cores (cgroup v2 cpu.max). Only hosts that delegate the cpu controller enforce it; elsewhere executions under a limit are refused.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotasPage</name>
    <message>
        <source>Quotas</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Limits in force for new executions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sizes are in GiB (1 GiB = 2³⁰ bytes). 0 or Unlimited means no limit. A change applies to executions created after it; running ones keep the limits they started with.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Revert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send the changed quotas to the agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the agent&apos;s values again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last change</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>quota settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the quotas</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No change is recorded, or this agent does not report its audit trail with the quotas.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent refused the quotas (HTTP %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quotas applied.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::RunDialog</name>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New strong workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shell (bash)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Python</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>R</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not installed on this host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>workspace root</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>agent default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none (e.g. 2, 5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove the selected variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Workspace:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Kind:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Script:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Working &amp;directory:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Timeout:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NPU &amp;chips:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chips are logic ids separated by commas, e.g. 2, 5.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None (the host&apos;s interpreters)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A science environment from the Environments page: the run sees its packages at /opt/science-env (strong workspaces)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Science en&amp;vironment:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This agent has no science environments yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2, %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No ready revision yet (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This light workspace was created without a science environment: choose none, or a strong or new workspace (a light workspace gets its environment when it is created).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This light workspace runs the science environment it was created with (%1): choose that one.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::RunRequest</name>
    <message>
        <source>The working directory is relative to the workspace: remove the leading &apos;/&apos;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The working directory may not contain NUL or &apos;\&apos;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The working directory is longer than 4096 bytes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The working directory may not contain &apos;.&apos;, &apos;..&apos; or empty segments.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose shell, Python or R.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The script is empty.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid environment variable name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The variable %1 is set twice.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The timeout cannot be negative.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Mi characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log view &amp;keeps:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A new language applies the next time the console starts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The ssh that SSH profiles run: a name on PATH or a path, e.g. a wrapper that adds options. Applies to connections opened from now on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SSH &amp;program:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The fleet file: the agents list, shared with the runbox CLI and the Python client (--fleet to use another).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agents are kept in:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::SshTunnel</name>
    <message numerus="yes">
        <source>ssh did not open the local port within %n s.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>No free local port for the SSH tunnel.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot run %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ssh was killed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ssh exited with status %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::TokenVault</name>
    <message>
        <source>Tokens are kept for this session only (keychain disabled).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No keychain service is reachable (%1). Tokens are kept for this session only and are never written to disk; you will be asked again next time.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::TransferPanel</name>
    <message>
        <source>Transfers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;lear finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>↑ %1 → %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>↓ %1 → %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%p% of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspaceInfo</name>
    <message>
        <source>Strong</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Background processes killed (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Background processes killed (%1): %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspaceTableModel</name>
    <message>
        <source>Confinement: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>never evicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>evicted after %1 s idle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>kept for this session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The scoped token of this workspace is kept in memory until the console closes; it is never written to disk.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent gives a workspace&apos;s token only when it is created: tokens of workspaces made elsewhere cannot be copied here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>build workspace of environment %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Isolation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>UID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Idle timeout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Notes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>As the agent said when the workspace was created.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not measured yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes on disk, as the workspace quota counts them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At least %1 bytes: the walk stopped at the agent&apos;s entry cap.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, last %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Executions the agent keeps records of (managed runs, environment builds, NPU jobs; sync executions are not recorded) and when the newest was started.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>runs environment %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Executions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>evicted at %1 if idle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in use (evicted after %1 s idle)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Evicted after %1 s without use; last used %2.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspacesPage</name>
    <message>
        <source>Workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Create…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy &amp;token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create one strong workspace or a batch of light ones</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the selected workspaces and their files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the scoped token of a workspace created in this session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent gives a workspace&apos;s scoped token only when it is created: the console keeps the tokens of the workspaces created here in memory for this session only and never writes them to disk.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light tier: %1 of %2 workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light tier: %1 workspaces, no capacity set</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>idle light workspaces evicted after %1 s by default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light tier unavailable: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Creating workspaces…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not create workspaces: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) created.</source>
        <translation>
            <numerusform>%n workspace created.</numerusform>
            <numerusform>%n workspaces created.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not made: the agent&apos;s capacity for them is used up (its light-workspace quota or its pool&apos;s capacity).</source>
        <translation>
            <numerusform>%n not made: the agent&apos;s capacity for them is used up (its light-workspace quota or its pool&apos;s capacity).</numerusform>
            <numerusform>%n not made: the agent&apos;s capacity for them is used up (its light-workspace quota or its pool&apos;s capacity).</numerusform>
        </translation>
    </message>
    <message>
        <source>Delete workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Delete %n workspace(s) and every file in them? This cannot be undone.</source>
        <translation>
            <numerusform>Delete %n workspace and every file in it? This cannot be undone.</numerusform>
            <numerusform>Delete %n workspaces and every file in them? This cannot be undone.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleting %n workspace(s)…</source>
        <translation>
            <numerusform>Deleting %n workspace…</numerusform>
            <numerusform>Deleting %n workspaces…</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) not deleted:</source>
        <translation>
            <numerusform>%n workspace not deleted:</numerusform>
            <numerusform>%n workspaces not deleted:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) deleted.</source>
        <translation>
            <numerusform>%n workspace deleted.</numerusform>
            <numerusform>%n workspaces deleted.</numerusform>
        </translation>
    </message>
    <message>
        <source>No token kept for this workspace: the agent gives it only when the workspace is created.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token of %1 copied to the clipboard.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse the files of the selected workspace</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
