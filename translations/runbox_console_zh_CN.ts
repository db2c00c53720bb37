<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>runbox::NetworkPolicyGrammar</name>
    <message>
        <source>empty host name</source>
        <translation>主机名为空</translation>
    </message>
    <message>
        <source>IP literals are not allowed; use a domain name</source>
        <translation>不允许使用 IP 地址；请使用域名</translation>
    </message>
    <message>
        <source>not a valid domain name</source>
        <translation>不是有效的域名</translation>
    </message>
    <message>
        <source>a single label is not allowed; name a domain such as example.org</source>
        <translation>不允许单段名称；请写完整域名，例如 example.org</translation>
    </message>
    <message>
        <source>labels must be letters, digits and inner hyphens, 1-63 characters</source>
        <translation>每段只能由字母、数字和中间的连字符组成，长度 1–63 个字符</translation>
    </message>
    <message>
        <source>empty entry</source>
        <translation>空条目</translation>
    </message>
    <message>
        <source>&apos;/&apos;, &apos;@&apos; and whitespace are not allowed</source>
        <translation>不允许“/”、“@”和空白字符</translation>
    </message>
    <message>
        <source>&apos;*&apos; is only allowed as a leading &quot;*.&quot;</source>
        <translation>“*”只能以开头的“*.”形式出现</translation>
    </message>
    <message>
        <source>bad port (must be 1-65535)</source>
        <translation>端口无效（必须为 1–65535）</translation>
    </message>
    <message>
        <source>not an address prefix such as 10.0.0.0/8 or fd00::/8</source>
        <translation>不是地址前缀，例如 10.0.0.0/8 或 fd00::/8</translation>
    </message>
    <message>
        <source>enter a host name such as pypi.org or pypi.org:443</source>
        <translation>请输入主机名，例如 pypi.org 或 pypi.org:443</translation>
    </message>
    <message>
        <source>IP addresses are never allowed; egress admits domain names only</source>
        <translation>永远不允许 IP 地址；出站只接受域名</translation>
    </message>
    <message>
        <source>no domain is allowed</source>
        <translation>不允许任何域名</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentConnection</name>
    <message>
        <source>Disconnected</source>
        <translation>已断开</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>Connected</source>
        <translation>已连接</translation>
    </message>
    <message numerus="yes">
        <source>Reconnecting in %n s</source>
        <translation>
            <numerusform>%n 秒后重新连接</numerusform>
        </translation>
    </message>
    <message>
        <source>Token refused</source>
        <translation>令牌被拒绝</translation>
    </message>
    <message>
        <source>Incompatible agent</source>
        <translation>不兼容的代理</translation>
    </message>
    <message>
        <source>Disconnected from %1.</source>
        <translation>已断开与 %1 的连接。</translation>
    </message>
    <message>
        <source>%1 does not answer like a Runbox agent (HTTP %2).</source>
        <translation>%1 的响应不像 Runbox 代理（HTTP %2）。</translation>
    </message>
    <message>
        <source>The agent refused the token: %1</source>
        <translation>代理拒绝了令牌：%1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Health check failed (HTTP %1): %2</source>
        <translation>健康检查失败（HTTP %1）：%2</translation>
    </message>
    <message>
        <source>Connected to %1 (agent %2).</source>
        <translation>已连接到 %1（代理 %2）。</translation>
    </message>
    <message>
        <source>Reconnected to %1.</source>
        <translation>已重新连接到 %1。</translation>
    </message>
    <message numerus="yes">
        <source>Lost connection to %1 (%2); reconnecting in %n s.</source>
        <translation>
            <numerusform>与 %1 的连接已断开（%2）；%n 秒后重新连接。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>no answer within %n s</source>
        <translation>
            <numerusform>%n 秒内无响应</numerusform>
        </translation>
    </message>
    <message>
        <source>Certificate refused</source>
        <translation>证书被拒绝</translation>
    </message>
    <message>
        <source>To trust this agent, compare the fingerprint with the output of runbox-agent --print-fingerprint on its host, then enter it as the agent&apos;s TLS fingerprint (Edit agent).</source>
        <translation>要信任此代理，请将该指纹与其主机上 runbox-agent --print-fingerprint 的输出进行比较，然后将其填写为代理的 TLS 指纹（编辑代理）。</translation>
    </message>
    <message>
        <source>Opening SSH tunnel…</source>
        <translation>正在打开 SSH 隧道…</translation>
    </message>
    <message numerus="yes">
        <source>SSH tunnel failed (%1); retrying in %n s</source>
        <translation>
            <numerusform>SSH 隧道失败（%1）；%n 秒后重试</numerusform>
        </translation>
    </message>
    <message>
        <source>SSH tunnel: %1</source>
        <translation>SSH 隧道：%1</translation>
    </message>
    <message>
        <source>%1 (ssh: %2)</source>
        <translation>%1（ssh：%2）</translation>
    </message>
    <message>
        <source>SSH refused: %1</source>
        <translation>SSH 拒绝：%1</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentListActions</name>
    <message>
        <source>Agents</source>
        <translation>代理</translation>
    </message>
    <message>
        <source>The agents list could not be read: %1</source>
        <translation>无法读取代理列表：%1</translation>
    </message>
    <message>
        <source>The agents list was not saved: %1</source>
        <translation>代理列表未保存：%1</translation>
    </message>
    <message>
        <source>Remove agent</source>
        <translation>移除代理</translation>
    </message>
    <message>
        <source>Remove %1 and forget its token?</source>
        <translation>移除 %1 并忘记它的令牌吗？</translation>
    </message>
    <message>
        <source>Agent certificate</source>
        <translation>代理证书</translation>
    </message>
    <message>
        <source>%1 presents a certificate no authority vouches for. Its SHA-256 fingerprint is:

%2

Compare it with the output of runbox-agent --print-fingerprint on the agent&apos;s host (or its log). Pin it and connect only if they are the same.</source>
        <translation>%1 出示的证书没有任何证书颁发机构担保。其 SHA-256 指纹为：

%2

请将其与代理主机上 runbox-agent --print-fingerprint 的输出（或其日志）进行比较。仅当两者相同时才固定此指纹并连接。</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentPage</name>
    <message>
        <source>No agent selected</source>
        <translation>未选择代理</translation>
    </message>
    <message>
        <source>Add an agent or pick one in the list on the left, then connect.</source>
        <translation>请添加代理或在左侧列表中选择一个，然后连接。</translation>
    </message>
    <message>
        <source>Not connected</source>
        <translation>未连接</translation>
    </message>
    <message>
        <source>Waiting for %1: %2</source>
        <translation>正在等待 %1：%2</translation>
    </message>
    <message>
        <source>Not offered by this agent yet</source>
        <translation>此代理尚未提供</translation>
    </message>
    <message>
        <source>%1 does not offer %2 yet (%3 is not there). The page lights up by itself once the agent is upgraded.</source>
        <translation>%1 尚未提供%2（没有 %3）。代理升级后此页面会自动启用。</translation>
    </message>
    <message>
        <source>The agent</source>
        <translation>代理</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentProfile</name>
    <message>
        <source>Give the agent a name.</source>
        <translation>请为代理取一个名称。</translation>
    </message>
    <message>
        <source>The URL must start with http:// or https://, e.g. http://127.0.0.1:4311.</source>
        <translation>URL 必须以 http:// 或 https:// 开头，例如 http://127.0.0.1:4311。</translation>
    </message>
    <message>
        <source>The URL has no host.</source>
        <translation>URL 中没有主机。</translation>
    </message>
    <message>
        <source>The URL must be the agent&apos;s base address, without a path.</source>
        <translation>URL 必须是代理的基础地址，不能带路径。</translation>
    </message>
    <message>
        <source>The TLS fingerprint must be the agent&apos;s SHA-256 fingerprint (AB:CD:…, as runbox-agent --print-fingerprint prints it).</source>
        <translation>TLS 指纹必须是代理的 SHA-256 指纹（AB:CD:…，即 runbox-agent --print-fingerprint 打印的内容）。</translation>
    </message>
    <message>
        <source>A TLS fingerprint needs an https:// URL.</source>
        <translation>TLS 指纹需要 https:// URL。</translation>
    </message>
    <message>
        <source>Give the SSH host.</source>
        <translation>请填写 SSH 主机。</translation>
    </message>
    <message>
        <source>The SSH host must be a host name or address (no spaces, no leading &apos;-&apos;, no &apos;@&apos;, &apos;:&apos; or &apos;/&apos;).</source>
        <translation>SSH 主机必须是主机名或地址（不含空格，不以“-”开头，不含“@”、“:”或“/”）。</translation>
    </message>
    <message>
        <source>The SSH user must be a user name (no spaces, no leading &apos;-&apos;).</source>
        <translation>SSH 用户必须是用户名（不含空格，不以“-”开头）。</translation>
    </message>
    <message>
        <source>The SSH port must be between 1 and 65535.</source>
        <translation>SSH 端口必须在 1 到 65535 之间。</translation>
    </message>
    <message>
        <source>The remote end has no spaces.</source>
        <translation>远端不能包含空格。</translation>
    </message>
    <message>
        <source>The remote socket must be an absolute path, e.g. %1.</source>
        <translation>远程套接字必须是绝对路径，例如 %1。</translation>
    </message>
    <message>
        <source>The remote address must be host:port, e.g. %1.</source>
        <translation>远程地址必须是 主机:端口，例如 %1。</translation>
    </message>
    <message>
        <source>A TLS fingerprint needs an https:// URL; an SSH profile speaks plain HTTP inside the tunnel.</source>
        <translation>TLS 指纹需要 https:// URL；SSH 配置在隧道内使用普通 HTTP。</translation>
    </message>
    <message>
        <source>A unix-socket agent is reached through SSH: choose &quot;Connect through SSH&quot; and give the socket as the remote end.</source>
        <translation>Unix 套接字上的 agent 需通过 SSH 连接：勾选“通过 SSH 连接”，并将该套接字填为远端。</translation>
    </message>
    <message>
        <source>The name must be 1-64 letters, digits, &apos;_&apos; or &apos;-&apos; (it names the agent in the fleet file that the CLI reads too).</source>
        <translation>名称必须是 1-64 个字母、数字、&apos;_&apos; 或 &apos;-&apos;（它是代理在 CLI 也读取的 fleet 文件中的名称）。</translation>
    </message>
</context>
<context>
    <name>runbox::console::ChipTileDelegate</name>
    <message>
        <source>health ?</source>
        <translation>健康状况 ?</translation>
    </message>
    <message>
        <source>%1  ·  AI core %2</source>
        <translation>%1  ·  AI Core %2</translation>
    </message>
    <message>
        <source>%1 °C</source>
        <translation>%1 °C</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>HBM %1 / %2 GiB</source>
        <translation>HBM %1 / %2 GiB</translation>
    </message>
    <message>
        <source>HBM —</source>
        <translation>HBM —</translation>
    </message>
    <message>
        <source>In use · %1</source>
        <translation>使用中 · %1</translation>
    </message>
    <message>
        <source>In use by %1 · %2</source>
        <translation>被 %1 占用 · %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::ConnectionManager</name>
    <message>
        <source>No token is stored for %1.</source>
        <translation>未存储 %1 的令牌。</translation>
    </message>
    <message>
        <source>%1: no pool host nonce to derive its token from (%2).</source>
        <translation>%1：没有可用于派生其令牌的池主机 nonce（%2）。</translation>
    </message>
    <message>
        <source>the agent shows none: is it started with --pool-secret-file?</source>
        <translation>代理未提供：它是否以 --pool-secret-file 启动？</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1:%2</translation>
    </message>
</context>
<context>
    <name>runbox::console::CreateWorkspaceDialog</name>
    <message>
        <source>Create workspaces</source>
        <translation>创建工作区</translation>
    </message>
    <message>
        <source>&amp;Strong: its own sandbox per execution (one workspace)</source>
        <translation>强隔离(&amp;S)：每次执行都有自己的沙箱（一个工作区）</translation>
    </message>
    <message>
        <source>&amp;Light: own uid, Landlock and rlimits (a batch)</source>
        <translation>轻量(&amp;L)：独立 uid、Landlock 与 rlimits（可批量）</translation>
    </message>
    <message>
        <source>This agent cannot make light workspaces: %1</source>
        <translation>此代理无法创建轻量工作区：%1</translation>
    </message>
    <message>
        <source>&amp;Create</source>
        <translation>创建(&amp;C)</translation>
    </message>
    <message>
        <source>How many:</source>
        <translation>数量：</translation>
    </message>
    <message>
        <source>Up to %1 light workspaces at once; past the agent&apos;s capacity the answer says how many were not made.</source>
        <translation>一次最多 %1 个轻量工作区；超出代理容量时，回应会说明有多少个未创建。</translation>
    </message>
    <message>
        <source>Strong workspaces are created one at a time.</source>
        <translation>强隔离工作区一次只能创建一个。</translation>
    </message>
</context>
<context>
    <name>runbox::console::EntryListModel</name>
    <message>
        <source>%1: refused — %2</source>
        <translation>%1：被拒绝 — %2</translation>
    </message>
    <message>
        <source>%1   — %2</source>
        <translation>%1   — %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvTableModel</name>
    <message>
        <source>Names are letters, digits and &apos;_&apos;, not starting with a digit.</source>
        <translation>名称只能由字母、数字和“_”组成，且不能以数字开头。</translation>
    </message>
    <message>
        <source>%1 is already set above.</source>
        <translation>%1 已在上面设置。</translation>
    </message>
    <message>
        <source>Variable</source>
        <translation>变量</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentInfo</name>
    <message>
        <source>Building</source>
        <translation>正在构建</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Build failed</source>
        <translation>构建失败</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>R</source>
        <translation>R</translation>
    </message>
    <message>
        <source>Name at least one package.</source>
        <translation>请至少指定一个软件包。</translation>
    </message>
    <message>
        <source>At most %1 packages at once.</source>
        <translation>一次最多 %1 个软件包。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is longer than %2 characters.</source>
        <translation>“%1”超过 %2 个字符。</translation>
    </message>
    <message>
        <source>&quot;%1&quot;: pip options are not allowed.</source>
        <translation>“%1”：不允许使用 pip 选项。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; looks like a path or a URL: only package names and version constraints are allowed.</source>
        <translation>“%1”看起来像路径或 URL：只允许软件包名和版本约束。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a package name with optional version constraints (e.g. numpy, pandas&gt;=2,&lt;3).</source>
        <translation>“%1”不是带可选版本约束的软件包名（例如 numpy、pandas&gt;=2,&lt;3）。</translation>
    </message>
    <message>
        <source>Give the environment a name.</source>
        <translation>请为环境命名。</translation>
    </message>
    <message>
        <source>A name is 1–80 letters, digits, spaces, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;, starting with a letter or digit.</source>
        <translation>名称由 1–80 个字母、数字、空格、“.”、“_”或“-”组成，并以字母或数字开头。</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentTableModel</name>
    <message>
        <source>%1 (%2, provisioner %3)</source>
        <translation>%1（%2，供应器 %3）</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>暂无</translation>
    </message>
    <message>
        <source>Revisions built so far: %1</source>
        <translation>已构建的修订：%1</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Current revision</source>
        <translation>当前修订</translation>
    </message>
    <message>
        <source>Last build failure</source>
        <translation>上次构建失败</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentsPage</name>
    <message>
        <source>Environments</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>&amp;New…</source>
        <translation>新建(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Install packages…</source>
        <translation>安装软件包(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Uninstall packages…</source>
        <translation>卸载软件包(&amp;U)…</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <source>R&amp;un in this environment…</source>
        <translation>在此环境中运行(&amp;U)…</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <source>Create an environment (its first revision is a bare one)</source>
        <translation>创建环境（其第一个修订为空环境）</translation>
    </message>
    <message>
        <source>Build a new revision with more packages</source>
        <translation>构建包含更多软件包的新修订</translation>
    </message>
    <message>
        <source>Build a new revision without some packages</source>
        <translation>构建去掉部分软件包的新修订</translation>
    </message>
    <message>
        <source>Delete the environment and every revision of it</source>
        <translation>删除该环境及其所有修订</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Revision</source>
        <translation>修订</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Packages</source>
        <translation>软件包</translation>
    </message>
    <message>
        <source>Built</source>
        <translation>构建完成</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Package</source>
        <translation>软件包</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Revisions (newest first):</source>
        <translation>修订（最新的在前）：</translation>
    </message>
    <message>
        <source>science environments</source>
        <translation>科学计算环境</translation>
    </message>
    <message>
        <source>Could not read the environments</source>
        <translation>无法读取环境</translation>
    </message>
    <message>
        <source>Select an environment to see its revisions and packages.</source>
        <translation>选择一个环境以查看其修订和软件包。</translation>
    </message>
    <message>
        <source>Could not read the revisions: %1</source>
        <translation>无法读取修订：%1</translation>
    </message>
    <message>
        <source>%1 (current)</source>
        <translation>%1（当前）</translation>
    </message>
    <message>
        <source>%1 (files removed)</source>
        <translation>%1（文件已移除）</translation>
    </message>
    <message>
        <source>(bare)</source>
        <translation>（空）</translation>
    </message>
    <message>
        <source>Build execution: %1</source>
        <translation>构建执行：%1</translation>
    </message>
    <message>
        <source>No revision yet.</source>
        <translation>尚无修订。</translation>
    </message>
    <message>
        <source>Revision %1 is building: its packages are listed once it is ready.</source>
        <translation>修订 %1 正在构建：就绪后会列出其软件包。</translation>
    </message>
    <message>
        <source>Revision %1 failed and has no packages: %2</source>
        <translation>修订 %1 构建失败，没有软件包：%2</translation>
    </message>
    <message>
        <source>Reading the packages of %1…</source>
        <translation>正在读取 %1 的软件包…</translation>
    </message>
    <message>
        <source>Could not read the packages: %1</source>
        <translation>无法读取软件包：%1</translation>
    </message>
    <message>
        <source>Packages of %1 (%2 in all), SHA-256 %3</source>
        <translation>%1 的软件包（共 %2 个），SHA-256 %3</translation>
    </message>
    <message>
        <source>Delete environment</source>
        <translation>删除环境</translation>
    </message>
    <message>
        <source>Delete the environment %1 (%2) and all %3 of its revisions? Executions can no longer use it.</source>
        <translation>删除环境 %1（%2）及其全部 %3 个修订？之后执行将无法再使用它。</translation>
    </message>
    <message>
        <source>Creating the environment %1…</source>
        <translation>正在创建环境 %1…</translation>
    </message>
    <message>
        <source>Could not create %1: %2</source>
        <translation>无法创建 %1：%2</translation>
    </message>
    <message>
        <source>This agent cannot uninstall packages yet (%1 is not there).</source>
        <translation>此代理尚不能卸载软件包（没有 %1）。</translation>
    </message>
    <message>
        <source>Could not install: %1</source>
        <translation>无法安装：%1</translation>
    </message>
    <message>
        <source>Could not uninstall: %1</source>
        <translation>无法卸载：%1</translation>
    </message>
    <message>
        <source>Building a new revision of %1 (execution %2)…</source>
        <translation>正在构建 %1 的新修订（执行 %2）…</translation>
    </message>
    <message>
        <source>Could not delete %1: %2</source>
        <translation>无法删除 %1：%2</translation>
    </message>
    <message>
        <source>Environment %1 deleted.</source>
        <translation>环境 %1 已删除。</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionFollower</name>
    <message>
        <source>Could not read the execution record: %1</source>
        <translation>无法读取执行记录：%1</translation>
    </message>
    <message>
        <source>Cancelled from the console (closing the stream of a sync execution makes the agent kill it).</source>
        <translation>已在控制台取消（关闭同步执行的流会使代理终止它）。</translation>
    </message>
    <message>
        <source>The agent refused the execution (HTTP %1): %2</source>
        <translation>代理拒绝了此次执行（HTTP %1）：%2</translation>
    </message>
    <message>
        <source>The connection to the agent broke before the execution ended (%1); a sync execution is killed when its client disconnects.</source>
        <translation>执行结束前与代理的连接中断（%1）；同步执行在其客户端断开时会被终止。</translation>
    </message>
    <message>
        <source>stream closed</source>
        <translation>流已关闭</translation>
    </message>
    <message>
        <source>The agent cannot stream this log (HTTP %1): %2</source>
        <translation>代理无法传输此日志（HTTP %1）：%2</translation>
    </message>
    <message>
        <source>The agent does not know this execution: %1</source>
        <translation>代理不认识此次执行：%1</translation>
    </message>
    <message>
        <source>the stream ended early</source>
        <translation>流提前结束</translation>
    </message>
    <message numerus="yes">
        <source>Log stream interrupted (%1); resuming at byte %2 in %n s.</source>
        <translation>
            <numerusform>日志流中断（%1）；%n 秒后从第 %2 字节继续。</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancel refused (HTTP %1): %2</source>
        <translation>取消被拒绝（HTTP %1）：%2</translation>
    </message>
    <message>
        <source>Cancel requested; waiting for the execution to end.</source>
        <translation>已请求取消；正在等待执行结束。</translation>
    </message>
    <message>
        <source>The agent reported an error in the stream: %1</source>
        <translation>代理在流中报告了错误：%1</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionInfo</name>
    <message>
        <source>Queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>已超时</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Output limited</source>
        <translation>输出超限</translation>
    </message>
    <message>
        <source>Quota exceeded</source>
        <translation>超出配额</translation>
    </message>
    <message>
        <source>Setup failed</source>
        <translation>准备失败</translation>
    </message>
    <message>
        <source>Lost</source>
        <translation>已丢失</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Memory exceeded</source>
        <translation>内存超限</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionLauncher</name>
    <message>
        <source>Not connected to an agent.</source>
        <translation>未连接到代理。</translation>
    </message>
    <message>
        <source>Creating a workspace…</source>
        <translation>正在创建工作区…</translation>
    </message>
    <message>
        <source>Could not create a workspace: %1</source>
        <translation>无法创建工作区：%1</translation>
    </message>
    <message>
        <source>The connection to the agent was closed.</source>
        <translation>与代理的连接已关闭。</translation>
    </message>
    <message>
        <source>Starting the execution…</source>
        <translation>正在启动执行…</translation>
    </message>
    <message>
        <source>The agent refused the execution (HTTP %1): %2</source>
        <translation>代理拒绝了此次执行（HTTP %1）：%2</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionTableModel</name>
    <message>
        <source>%1 (#%2)</source>
        <translation>%1（第 %2 位）</translation>
    </message>
    <message>
        <source>Execution</source>
        <translation>执行</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>退出码</translation>
    </message>
    <message>
        <source>Chips</source>
        <translation>芯片</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionWindow</name>
    <message>
        <source>Execution</source>
        <translation>执行</translation>
    </message>
    <message>
        <source>Follow</source>
        <translation>跟随</translation>
    </message>
    <message>
        <source>Keep the end of the log in view</source>
        <translation>始终显示日志末尾</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Hold new output aside (bounded) until resumed</source>
        <translation>暂存新的输出（有上限），直到继续</translation>
    </message>
    <message>
        <source>Find…</source>
        <translation>查找…</translation>
    </message>
    <message>
        <source>Find in the log (Ctrl+F)</source>
        <translation>在日志中查找（Ctrl+F）</translation>
    </message>
    <message>
        <source>Save log…</source>
        <translation>保存日志…</translation>
    </message>
    <message>
        <source>Cancel run</source>
        <translation>取消运行</translation>
    </message>
    <message>
        <source>Cancel this execution (Ctrl+.)</source>
        <translation>取消此次执行（Ctrl+.）</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>字段</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决定</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Bytes up</source>
        <translation>上行字节</translation>
    </message>
    <message>
        <source>Bytes down</source>
        <translation>下行字节</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>出站</translation>
    </message>
    <message>
        <source>[… %1 bytes dropped by the agent&apos;s output retention …]</source>
        <translation>[… 代理的输出保留策略丢弃了 %1 字节 …]</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>workspace %1</source>
        <translation>工作区 %1</translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>signal %1</source>
        <translation>信号 %1</translation>
    </message>
    <message>
        <source>chips %1</source>
        <translation>芯片 %1</translation>
    </message>
    <message>
        <source>sync stream</source>
        <translation>同步流</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>退出码</translation>
    </message>
    <message>
        <source>Signal</source>
        <translation>信号</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>已创建</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>结束时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Permission epoch</source>
        <translation>权限快照</translation>
    </message>
    <message>
        <source>(not reported)</source>
        <translation>（未报告）</translation>
    </message>
    <message>
        <source>How it ran</source>
        <translation>运行方式</translation>
    </message>
    <message>
        <source>Working directory</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>/workspace</source>
        <translation>/workspace</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>Changed files</source>
        <translation>变更的文件</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>已修改</translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>allowed</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>This agent does not record egress decisions yet.</source>
        <translation>此代理尚不记录出站决定。</translation>
    </message>
    <message>
        <source>No connection was attempted.</source>
        <translation>没有尝试任何连接。</translation>
    </message>
    <message>
        <source>— %1</source>
        <translation>— %1</translation>
    </message>
    <message>
        <source>, exit code %1</source>
        <translation>，退出码 %1</translation>
    </message>
    <message>
        <source>, after %1</source>
        <translation>，用时 %1</translation>
    </message>
    <message>
        <source>: %1</source>
        <translation>：%1</translation>
    </message>
    <message>
        <source>Save log</source>
        <translation>保存日志</translation>
    </message>
    <message>
        <source>Log files (*.log *.txt);;All files (*)</source>
        <translation>日志文件 (*.log *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Could not save: %1</source>
        <translation>无法保存：%1</translation>
    </message>
    <message>
        <source>Saving the log…</source>
        <translation>正在保存日志…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Saving the log… %1</source>
        <translation>正在保存日志… %1</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>This execution runs on a sync stream: closing the window closes the stream and the agent kills the execution. Close anyway?</source>
        <translation>此次执行运行在同步流上：关闭窗口会关闭流，代理将终止执行。仍要关闭吗？</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>内存峰值</translation>
    </message>
    <message>
        <source>CPU (user)</source>
        <translation>CPU（用户态）</translation>
    </message>
    <message>
        <source>CPU (system)</source>
        <translation>CPU（内核态）</translation>
    </message>
    <message>
        <source>Most processes</source>
        <translation>最多进程数</translation>
    </message>
    <message>
        <source>Usage</source>
        <translation>资源使用</translation>
    </message>
    <message>
        <source>(not measured)</source>
        <translation>（未测量）</translation>
    </message>
    <message>
        <source>environment %1</source>
        <translation>环境 %1</translation>
    </message>
    <message>
        <source>Science environment</source>
        <translation>科学计算环境</translation>
    </message>
    <message>
        <source>Environment revision</source>
        <translation>环境修订</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionsPage</name>
    <message>
        <source>Executions</source>
        <translation>执行记录</translation>
    </message>
    <message>
        <source>All states</source>
        <translation>所有状态</translation>
    </message>
    <message>
        <source>All workspaces</source>
        <translation>所有工作区</translation>
    </message>
    <message>
        <source>Filter by id, workspace or kind (Ctrl+F)</source>
        <translation>按 ID、工作区或类型筛选（Ctrl+F）</translation>
    </message>
    <message>
        <source>&amp;Live</source>
        <translation>实时(&amp;L)</translation>
    </message>
    <message>
        <source>Refresh the newest executions every few seconds</source>
        <translation>每隔几秒刷新最新的执行</translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation>运行(&amp;R)…</translation>
    </message>
    <message>
        <source>State:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Workspace:</source>
        <translation>工作区：</translation>
    </message>
    <message>
        <source>managed executions</source>
        <translation>托管执行</translation>
    </message>
    <message>
        <source>Could not load executions: %1</source>
        <translation>无法加载执行记录：%1</translation>
    </message>
    <message>
        <source>not connected</source>
        <translation>未连接</translation>
    </message>
    <message numerus="yes">
        <source>%n execution(s) loaded</source>
        <translation>
            <numerusform>已加载 %n 条执行</numerusform>
        </translation>
    </message>
    <message>
        <source> · loading…</source>
        <translation> · 正在加载…</translation>
    </message>
    <message>
        <source> · scroll down for older ones</source>
        <translation> · 向下滚动查看更早的记录</translation>
    </message>
</context>
<context>
    <name>runbox::console::FileEntry</name>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Link</source>
        <translation>链接</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>runbox::console::FileListModel</name>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <source>Permissions</source>
        <translation>权限</translation>
    </message>
</context>
<context>
    <name>runbox::console::FilePreview</name>
    <message>
        <source>Select a text file of at most %1 to preview it.</source>
        <translation>选择不超过 %1 的文本文件以预览。</translation>
    </message>
    <message>
        <source>%1 is a link to %2: the console never follows links.</source>
        <translation>%1 是指向 %2 的链接：控制台从不跟随链接。</translation>
    </message>
    <message>
        <source>%1 is not a regular file.</source>
        <translation>%1 不是普通文件。</translation>
    </message>
    <message>
        <source>%1 is larger than %2: download it to read it.</source>
        <translation>%1 大于 %2：请下载后阅读。</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Not connected.</source>
        <translation>未连接。</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is not text.</source>
        <translation>%1 不是文本。</translation>
    </message>
    <message>
        <source>%1 is not UTF-8 text.</source>
        <translation>%1 不是 UTF-8 文本。</translation>
    </message>
</context>
<context>
    <name>runbox::console::FileTransfer</name>
    <message>
        <source>not connected</source>
        <translation>未连接</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>the connection was closed</source>
        <translation>连接已关闭</translation>
    </message>
    <message>
        <source>%1 is a folder: only files are downloaded</source>
        <translation>%1 是文件夹：只能下载文件</translation>
    </message>
    <message>
        <source>the download ended after %1 of %2 bytes</source>
        <translation>下载在 %2 字节中的 %1 字节后中断</translation>
    </message>
</context>
<context>
    <name>runbox::console::FilesPage</name>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>The workspace whose files are shown</source>
        <translation>显示其文件的工作区</translation>
    </message>
    <message>
        <source>&amp;Up</source>
        <translation>上一级(&amp;U)</translation>
    </message>
    <message>
        <source>New &amp;folder…</source>
        <translation>新建文件夹(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Upload…</source>
        <translation>上传(&amp;U)…</translation>
    </message>
    <message>
        <source>Do&amp;wnload…</source>
        <translation>下载(&amp;W)…</translation>
    </message>
    <message>
        <source>Re&amp;name / move…</source>
        <translation>重命名/移动(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <source>Show the parent folder</source>
        <translation>显示上级文件夹</translation>
    </message>
    <message>
        <source>Upload a file into this folder</source>
        <translation>将文件上传到此文件夹</translation>
    </message>
    <message>
        <source>Save the selected file on this computer</source>
        <translation>将所选文件保存到这台电脑</translation>
    </message>
    <message>
        <source>Delete the selected files and folders</source>
        <translation>删除所选文件和文件夹</translation>
    </message>
    <message>
        <source>Workspace:</source>
        <translation>工作区：</translation>
    </message>
    <message>
        <source>workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Could not read the workspaces: %1</source>
        <translation>无法读取工作区：%1</translation>
    </message>
    <message>
        <source>%1:/%2</source>
        <translation>%1:/%2</translation>
    </message>
    <message>
        <source>Could not list %1: %2</source>
        <translation>无法列出 %1：%2</translation>
    </message>
    <message>
        <source>Could not make folder %1: %2</source>
        <translation>无法创建文件夹 %1：%2</translation>
    </message>
    <message>
        <source>Folder %1 made.</source>
        <translation>已创建文件夹 %1。</translation>
    </message>
    <message>
        <source>Could not move %1 to %2: %3</source>
        <translation>无法将 %1 移动到 %2：%3</translation>
    </message>
    <message>
        <source>%1 moved to %2.</source>
        <translation>%1 已移动到 %2。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) not deleted:</source>
        <translation>
            <numerusform>%n 项未删除：</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) deleted.</source>
        <translation>
            <numerusform>已删除 %n 项。</numerusform>
        </translation>
    </message>
    <message>
        <source>New folder</source>
        <translation>新建文件夹</translation>
    </message>
    <message>
        <source>Name of the new folder in %1:</source>
        <translation>在 %1 中新建文件夹的名称：</translation>
    </message>
    <message>
        <source>Rename or move</source>
        <translation>重命名或移动</translation>
    </message>
    <message>
        <source>New path of %1 in the workspace:</source>
        <translation>%1 在工作区中的新路径：</translation>
    </message>
    <message>
        <source>Delete files</source>
        <translation>删除文件</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n item(s)? Folders are deleted with everything in them. This cannot be undone.</source>
        <translation>
            <numerusform>删除 %n 项？文件夹将连同其中所有内容一起删除。此操作无法撤销。</numerusform>
        </translation>
    </message>
    <message>
        <source>Upload a file</source>
        <translation>上传文件</translation>
    </message>
    <message>
        <source>Save %1 as</source>
        <translation>将 %1 另存为</translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetHost</name>
    <message>
        <source>The connection was closed.</source>
        <translation>连接已关闭。</translation>
    </message>
    <message>
        <source>Reading the chips…</source>
        <translation>正在读取芯片…</translation>
    </message>
    <message>
        <source>Disconnected</source>
        <translation>未连接</translation>
    </message>
    <message>
        <source>Unreachable (%1): no chips can be chosen.</source>
        <translation>无法访问（%1）：不能选择芯片。</translation>
    </message>
    <message>
        <source>Unreachable (%1): %2</source>
        <translation>无法访问（%1）：%2</translation>
    </message>
    <message>
        <source>This agent does not offer GET /v1/npu/chips yet.</source>
        <translation>此代理尚未提供 GET /v1/npu/chips。</translation>
    </message>
    <message>
        <source>Could not read the chips: %1</source>
        <translation>无法读取芯片：%1</translation>
    </message>
    <message>
        <source>No NPU on this host.</source>
        <translation>此主机上没有 NPU。</translation>
    </message>
    <message>
        <source>No NPU on this host: %1</source>
        <translation>此主机上没有 NPU：%1</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n chip(s) usable</source>
        <translation>
            <numerusform>%n 个芯片中 %1 个可用</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n in use</source>
        <translation>
            <numerusform>%1 · %n 个使用中</numerusform>
        </translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetHostSection</name>
    <message numerus="yes">
        <source>Run on this host with %n chip(s)…</source>
        <translation>
            <numerusform>使用 %n 个芯片在此主机上运行…</numerusform>
        </translation>
    </message>
    <message>
        <source>Run on this host with selected chips…</source>
        <translation>使用所选芯片在此主机上运行…</translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetPage</name>
    <message>
        <source>No agent is connected. Connect agents in the list on the left; their chips appear here, grouped by host.</source>
        <translation>尚未连接任何代理。请在左侧列表中连接代理；它们的芯片将按主机分组显示在这里。</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message numerus="yes">
        <source>Read every host&apos;s chips again (they are also read every %n second(s))</source>
        <translation>
            <numerusform>重新读取每台主机的芯片（也会每 %n 秒自动读取）</numerusform>
        </translation>
    </message>
    <message>
        <source>Fleet</source>
        <translation>机群</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n host(s) reachable</source>
        <translation>
            <numerusform>%n 台主机中 %1 台可访问</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n chip(s) usable</source>
        <translation>
            <numerusform>%n 个芯片中 %1 个可用</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>runbox::console::Format</name>
    <message>
        <source>%1 KiB</source>
        <translation>%1 KiB</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 TiB</source>
        <translation>%1 TiB</translation>
    </message>
    <message>
        <source>%1 PiB</source>
        <translation>%1 PiB</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 天 %2 小时</translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
</context>
<context>
    <name>runbox::console::HealthReport</name>
    <message>
        <source>Not known yet</source>
        <translation>尚不清楚</translation>
    </message>
    <message>
        <source>Unusable: executions are refused</source>
        <translation>不可用：执行请求会被拒绝</translation>
    </message>
    <message>
        <source>Sound</source>
        <translation>健全</translation>
    </message>
    <message numerus="yes">
        <source>Sound, with %n warning(s)</source>
        <translation>
            <numerusform>健全，有 %n 条警告</numerusform>
        </translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>沙箱</translation>
    </message>
    <message>
        <source>Unusable</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>No sandbox can be built, so the agent runs nothing (it never falls back to running code unsandboxed). %1</source>
        <translation>无法构建沙箱，因此代理不会运行任何代码（它绝不会退回到不加沙箱地运行）。%1</translation>
    </message>
    <message>
        <source>bubblewrap</source>
        <translation>bubblewrap</translation>
    </message>
    <message>
        <source>version unknown</source>
        <translation>版本未知</translation>
    </message>
    <message>
        <source>Every execution is a fresh bubblewrap sandbox (%1).</source>
        <translation>每次执行都在全新的 bubblewrap 沙箱中进行（%1）。</translation>
    </message>
    <message>
        <source>/proc</source>
        <translation>/proc</translation>
    </message>
    <message>
        <source>bound from the host</source>
        <translation>从主机绑定</translation>
    </message>
    <message>
        <source>The kernel refused a fresh /proc, so the host&apos;s /proc is bound read-only: code in a sandbox can see the host&apos;s process list and command lines. Cause: %1</source>
        <translation>内核拒绝挂载新的 /proc，因此以只读方式绑定了主机的 /proc：沙箱中的代码可以看到主机的进程列表和命令行。原因：%1</translation>
    </message>
    <message>
        <source>own PID namespace</source>
        <translation>独立的 PID 命名空间</translation>
    </message>
    <message>
        <source>Each sandbox sees only its own processes.</source>
        <translation>每个沙箱只能看到自己的进程。</translation>
    </message>
    <message>
        <source>Nested user namespaces</source>
        <translation>嵌套用户命名空间</translation>
    </message>
    <message>
        <source>blocked</source>
        <translation>已阻止</translation>
    </message>
    <message>
        <source>bubblewrap&apos;s --disable-userns stops sandboxed code from creating user namespaces of its own.</source>
        <translation>bubblewrap 的 --disable-userns 阻止沙箱中的代码创建自己的用户命名空间。</translation>
    </message>
    <message>
        <source>not blocked by bubblewrap</source>
        <translation>未被 bubblewrap 阻止</translation>
    </message>
    <message>
        <source>This bubblewrap is older than 0.8 and has no --disable-userns; only the seccomp filter stops sandboxed code from creating namespaces. Upgrade bubblewrap to restore the second layer.</source>
        <translation>此 bubblewrap 早于 0.8，没有 --disable-userns；只有 seccomp 过滤器能阻止沙箱代码创建命名空间。请升级 bubblewrap 以恢复第二层防护。</translation>
    </message>
    <message>
        <source>The kernel refused --disable-userns (for example a read-only /proc/sys inside a container); only the seccomp filter stops sandboxed code from creating namespaces.</source>
        <translation>内核拒绝了 --disable-userns（例如容器内 /proc/sys 为只读）；只有 seccomp 过滤器能阻止沙箱代码创建命名空间。</translation>
    </message>
    <message>
        <source>seccomp</source>
        <translation>seccomp</translation>
    </message>
    <message>
        <source>filter unavailable</source>
        <translation>过滤器不可用</translation>
    </message>
    <message>
        <source>A syscall filter for %1 is loaded into every sandbox; denied calls fail with %2.</source>
        <translation>每个沙箱都加载了针对 %1 的系统调用过滤器；被拒绝的调用返回 %2。</translation>
    </message>
    <message>
        <source>architecture not reported</source>
        <translation>未报告架构</translation>
    </message>
    <message>
        <source>The agent did not say which syscall filter it loads.</source>
        <translation>代理没有说明它加载了哪种系统调用过滤器。</translation>
    </message>
    <message>
        <source>Landlock</source>
        <translation>Landlock</translation>
    </message>
    <message>
        <source>not reported by this agent</source>
        <translation>此代理未报告</translation>
    </message>
    <message>
        <source>Landlock confines light workspaces; this agent does not report its ABI.</source>
        <translation>Landlock 用于限制轻量工作区；此代理未报告其 ABI。</translation>
    </message>
    <message>
        <source>unavailable</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>The kernel has no Landlock: light workspaces cannot be confined and are refused.</source>
        <translation>内核不支持 Landlock：轻量工作区无法被限制，因此会被拒绝。</translation>
    </message>
    <message>
        <source>ABI %1</source>
        <translation>ABI %1</translation>
    </message>
    <message>
        <source>Light workspaces are confined to their home by a Landlock ruleset.</source>
        <translation>轻量工作区由 Landlock 规则集限制在各自的主目录中。</translation>
    </message>
    <message>
        <source>Agent warning</source>
        <translation>代理警告</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>出站</translation>
    </message>
    <message>
        <source>This agent does not offer egress through the gateway yet: sandboxes have no network at all.</source>
        <translation>此代理尚不提供经网关的出站访问：沙箱完全没有网络。</translation>
    </message>
    <message>
        <source>available</source>
        <translation>可用</translation>
    </message>
    <message>
        <source>Sandboxes reach allowed domains through the gateway when the network policy allows them.</source>
        <translation>当网络策略允许时，沙箱可通过网关访问允许的域名。</translation>
    </message>
    <message>
        <source>The agent gave no reason.</source>
        <translation>代理没有给出原因。</translation>
    </message>
    <message>
        <source>Light workspaces</source>
        <translation>轻量工作区</translation>
    </message>
    <message>
        <source>Memory bounds</source>
        <translation>内存限制</translation>
    </message>
    <message>
        <source>cgroup v2</source>
        <translation>cgroup v2</translation>
    </message>
    <message>
        <source>Each execution has its own cgroup; the kernel enforces its memory and process limits. %1</source>
        <translation>每次执行都有自己的 cgroup；由内核强制执行其内存和进程限制。%1</translation>
    </message>
    <message>
        <source>watchdog</source>
        <translation>看门狗</translation>
    </message>
    <message>
        <source>No delegated cgroup: the agent samples each execution&apos;s memory and ends it as memory_exceeded past its limit; %1. %2</source>
        <translation>没有委派的 cgroup：代理会采样每次执行的内存，超过限制时以 memory_exceeded 结束它；%1。%2</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Executions with a memory limit are refused (503 limit_unenforceable). %1</source>
        <translation>带内存限制的执行会被拒绝（503 limit_unenforceable）。%1</translation>
    </message>
    <message>
        <source>CPU limit</source>
        <translation>CPU 限制</translation>
    </message>
    <message>
        <source>cgroup v2 cpu.max</source>
        <translation>cgroup v2 cpu.max</translation>
    </message>
    <message>
        <source>not enforceable here</source>
        <translation>此主机无法强制执行</translation>
    </message>
    <message>
        <source>Leave &quot;CPU per execution&quot; unlimited on this host: executions under a limit are refused. %1</source>
        <translation>请在此主机上将“每次执行的 CPU”设为不限：带限制的执行会被拒绝。%1</translation>
    </message>
    <message>
        <source>Pool %1: %2 workspaces, capacity %3, %4 free</source>
        <translation>池 %1：%2 个工作区，容量 %3，空闲 %4</translation>
    </message>
    <message>
        <source>?</source>
        <translation>?</translation>
    </message>
</context>
<context>
    <name>runbox::console::HostBanner</name>
    <message>
        <source>No agent selected</source>
        <translation>未选择代理</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::LanguageManager</name>
    <message>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
</context>
<context>
    <name>runbox::console::LogDownloader</name>
    <message>
        <source>Not connected.</source>
        <translation>未连接。</translation>
    </message>
    <message>
        <source>
[… %1 bytes dropped by retention …]
</source>
        <translation>
[… 保留策略丢弃了 %1 字节 …]
</translation>
    </message>
    <message>
        <source>The agent did not send the log (HTTP %1): %2</source>
        <translation>代理没有发送日志（HTTP %1）：%2</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
</context>
<context>
    <name>runbox::console::LogView</name>
    <message>
        <source>Match case</source>
        <translation>区分大小写</translation>
    </message>
    <message>
        <source>No output yet.</source>
        <translation>暂无输出。</translation>
    </message>
    <message>
        <source>Find:</source>
        <translation>查找：</translation>
    </message>
    <message>
        <source>Text in the log</source>
        <translation>日志中的文本</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>上一个匹配（Shift+Enter）</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>下一个匹配（Enter）</translation>
    </message>
    <message>
        <source>Close the find bar (Esc)</source>
        <translation>关闭查找栏（Esc）</translation>
    </message>
    <message>
        <source>Only the latest %1 characters are shown; %2 earlier characters were dropped from the view. Save the log to get all of it.</source>
        <translation>只显示最近的 %1 个字符；较早的 %2 个字符已从视图中移除。保存日志可获得完整内容。</translation>
    </message>
    <message>
        <source>Not found</source>
        <translation>未找到</translation>
    </message>
</context>
<context>
    <name>runbox::console::MainWindow</name>
    <message>
        <source>Runbox Console</source>
        <translation>Runbox 控制台</translation>
    </message>
    <message>
        <source>Agents</source>
        <translation>代理</translation>
    </message>
    <message>
        <source>Double-click an agent to connect. Several can be connected at once; the pages show the selected one.</source>
        <translation>双击代理即可连接。可同时连接多个代理；各页面显示所选代理的内容。</translation>
    </message>
    <message>
        <source>&amp;Add agent…</source>
        <translation>添加代理(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Edit agent…</source>
        <translation>编辑代理(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Remove agent</source>
        <translation>移除代理(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Disconnect</source>
        <translation>断开(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>查找(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;New run…</source>
        <translation>新建运行(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;About Runbox Console</source>
        <translation>关于 Runbox 控制台(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Agent</source>
        <translation>代理(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>Connect to an agent first.</source>
        <translation>请先连接到代理。</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Execution started.</source>
        <translation>执行已开始。</translation>
    </message>
    <message>
        <source>Execution started on a sync stream (this agent has no managed executions yet): keep its window open while it runs.</source>
        <translation>执行已在同步流上开始（此代理尚无托管执行）：运行期间请保持其窗口打开。</translation>
    </message>
    <message>
        <source>The new language applies when the console restarts.</source>
        <translation>新语言将在控制台重启后生效。</translation>
    </message>
    <message>
        <source>About Runbox Console</source>
        <translation>关于 Runbox 控制台</translation>
    </message>
    <message>
        <source>Tokens: system keychain</source>
        <translation>令牌：系统钥匙串</translation>
    </message>
    <message>
        <source>Tokens: this session only</source>
        <translation>令牌：仅本次会话</translation>
    </message>
    <message>
        <source>Run on %1</source>
        <translation>在 %1 上运行</translation>
    </message>
    <message>
        <source>The agent went away before the run started.</source>
        <translation>运行开始前代理已断开。</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Runbox Console %1&lt;/h3&gt;&lt;p&gt;The operators&apos; desktop console for Runbox agents: sandbox health, quotas, network policy, Ascend NPUs, executions and science environments.&lt;/p&gt;&lt;p&gt;Shortcuts: F5 refresh · Ctrl+F find · Ctrl+R new run · Ctrl+. cancel a run · Ctrl+1…9 pages.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Runbox 控制台 %1&lt;/h3&gt;&lt;p&gt;面向运维人员的 Runbox 代理桌面控制台：沙箱健康状况、配额、网络策略、Ascend NPU、执行记录和科学计算环境。&lt;/p&gt;&lt;p&gt;快捷键：F5 刷新 · Ctrl+F 查找 · Ctrl+R 新建运行 · Ctrl+. 取消运行 · Ctrl+1…9 切换页面。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>runbox::console::NetworkPolicyPage</name>
    <message>
        <source>Network policy</source>
        <translation>网络策略</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>&amp;None — sandboxes have no network at all</source>
        <translation>无(&amp;N) — 沙箱完全没有网络</translation>
    </message>
    <message>
        <source>&amp;Domain allowlist — only the names below, through the egress gateway</source>
        <translation>域名白名单(&amp;D) — 只允许下列名称，经出站网关访问</translation>
    </message>
    <message>
        <source>Allowed domains</source>
        <translation>允许的域名</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Paste lines…</source>
        <translation>粘贴多行…</translation>
    </message>
    <message>
        <source>host, *.host (subdomains at any depth), host:port, *.host:port. IP addresses are never allowed.</source>
        <translation>host、*.host（任意深度的子域名）、host:port、*.host:port。永远不允许 IP 地址。</translation>
    </message>
    <message>
        <source>Private networks allowed (CIDR)</source>
        <translation>允许的私有网络（CIDR）</translation>
    </message>
    <message>
        <source>Empty by default. The explicit door to an internal mirror: the gateway refuses private, loopback and link-local addresses unless they are inside one of these.</source>
        <translation>默认为空。这是通往内部镜像的显式入口：网关会拒绝私有、回环和链路本地地址，除非它们位于这些网段之内。</translation>
    </message>
    <message>
        <source>Would this host be allowed?</source>
        <translation>这个主机会被允许吗？</translation>
    </message>
    <message>
        <source>e.g. files.pythonhosted.org:443</source>
        <translation>例如 files.pythonhosted.org:443</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>应用(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Revert</source>
        <translation>还原(&amp;R)</translation>
    </message>
    <message>
        <source>network policies</source>
        <translation>网络策略</translation>
    </message>
    <message>
        <source>Could not read the network policy</source>
        <translation>无法读取网络策略</translation>
    </message>
    <message>
        <source>Current revision: %1</source>
        <translation>当前修订：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies).</source>
        <translation>
            <numerusform>共 %n 条。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies), %1 refused — hover a marked entry to see why.</source>
        <translation>
            <numerusform>共 %n 条，%1 条被拒绝 — 将鼠标悬停在标记的条目上查看原因。</numerusform>
        </translation>
    </message>
    <message>
        <source>Type a host name to check it against the policy as edited.</source>
        <translation>输入主机名，按当前编辑的策略进行检查。</translation>
    </message>
    <message>
        <source>Refused: mode None allows no network at all.</source>
        <translation>拒绝：“无”模式不允许任何网络。</translation>
    </message>
    <message>
        <source>Allowed on port %1 only, by %2.</source>
        <translation>仅允许端口 %1，依据 %2。</translation>
    </message>
    <message>
        <source>Allowed by %1 (if it resolves to a public address or to one inside the private networks).</source>
        <translation>依据 %1 允许（前提是它解析到公网地址或允许的私有网络内的地址）。</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>拒绝：%1</translation>
    </message>
    <message>
        <source>Refused: no domain is allowed.</source>
        <translation>拒绝：不允许任何域名。</translation>
    </message>
    <message>
        <source>Refused: no entry matches %1.</source>
        <translation>拒绝：没有条目匹配 %1。</translation>
    </message>
    <message>
        <source>Paste domains</source>
        <translation>粘贴域名</translation>
    </message>
    <message>
        <source>One entry per line (commas and spaces also separate entries; lines starting with # are ignored).</source>
        <translation>每行一个条目（逗号和空格也可分隔条目；以 # 开头的行会被忽略）。</translation>
    </message>
    <message>
        <source>Add entries</source>
        <translation>添加条目</translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies) added.</source>
        <translation>
            <numerusform>已添加 %n 条。</numerusform>
        </translation>
    </message>
    <message>
        <source>Fix or remove the marked entries first.</source>
        <translation>请先修正或移除标记的条目。</translation>
    </message>
    <message>
        <source>A domain allowlist needs at least one entry.</source>
        <translation>域名白名单至少需要一个条目。</translation>
    </message>
    <message>
        <source>The agent refused the policy (HTTP %1): %2</source>
        <translation>代理拒绝了该策略（HTTP %1）：%2</translation>
    </message>
    <message>
        <source>Network policy applied: %1</source>
        <translation>网络策略已应用：%1</translation>
    </message>
</context>
<context>
    <name>runbox::console::NewEnvironmentDialog</name>
    <message>
        <source>New environment</source>
        <translation>新建环境</translation>
    </message>
    <message>
        <source>e.g. analysis-2026</source>
        <translation>例如 analysis-2026</translation>
    </message>
    <message>
        <source>Not available on this agent: %1</source>
        <translation>此代理不可用：%1</translation>
    </message>
    <message>
        <source>The first revision is a bare environment; install packages into it afterwards. Its build log opens in a window of its own.</source>
        <translation>第一个修订是空环境，之后再向其中安装软件包。其构建日志会在单独的窗口中打开。</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <source>&amp;Create</source>
        <translation>创建(&amp;C)</translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuChip</name>
    <message>
        <source>%1 is not supported: only the Ascend 910 series can be selected.</source>
        <translation>不支持 %1：只能选择 Ascend 910 系列。</translation>
    </message>
    <message>
        <source>This chip</source>
        <translation>此芯片</translation>
    </message>
    <message>
        <source>The probe sandbox could not use this chip.</source>
        <translation>探测沙箱无法使用此芯片。</translation>
    </message>
    <message>
        <source>execution %1</source>
        <translation>执行 %1</translation>
    </message>
    <message>
        <source>broker job %1</source>
        <translation>代理作业 %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuChipModel</name>
    <message>
        <source>Chip %1</source>
        <translation>芯片 %1</translation>
    </message>
    <message>
        <source>Chip %1 (NPU %2, die %3): %4</source>
        <translation>芯片 %1（NPU %2，die %3）：%4</translation>
    </message>
    <message>
        <source>unknown model</source>
        <translation>型号未知</translation>
    </message>
    <message>
        <source>Probe: usable</source>
        <translation>探测：可用</translation>
    </message>
    <message>
        <source>In use now by a run or job on this agent.</source>
        <translation>此代理上的某个运行或作业正在使用它。</translation>
    </message>
    <message>
        <source>In use now by %1.</source>
        <translation>当前被 %1 占用。</translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuPage</name>
    <message>
        <source>NPU chips</source>
        <translation>NPU 芯片</translation>
    </message>
    <message>
        <source>Re-&amp;probe</source>
        <translation>重新探测(&amp;P)</translation>
    </message>
    <message>
        <source>Probe every chip again in a one-shot sandbox (may take a while)</source>
        <translation>在一次性沙箱中重新探测每个芯片（可能需要一些时间）</translation>
    </message>
    <message>
        <source>Select all usable</source>
        <translation>全选可用芯片</translation>
    </message>
    <message>
        <source>Clear selection</source>
        <translation>清除选择</translation>
    </message>
    <message>
        <source>&amp;Run with selected chips…</source>
        <translation>用所选芯片运行(&amp;R)…</translation>
    </message>
    <message>
        <source>Probing every chip in a one-shot sandbox…</source>
        <translation>正在一次性沙箱中探测每个芯片…</translation>
    </message>
    <message>
        <source>Ascend NPUs</source>
        <translation>Ascend NPU</translation>
    </message>
    <message>
        <source>Could not read the chips</source>
        <translation>无法读取芯片信息</translation>
    </message>
    <message>
        <source>Chips probed again.</source>
        <translation>已重新探测芯片。</translation>
    </message>
    <message>
        <source>No NPU on this host</source>
        <translation>此主机没有 NPU</translation>
    </message>
    <message>
        <source>The agent found no Ascend chip.</source>
        <translation>代理没有找到 Ascend 芯片。</translation>
    </message>
    <message>
        <source>%1 of %2 chips usable · source: %3 · read %4</source>
        <translation>%2 个芯片中 %1 个可用 · 来源：%3 · 读取于 %4</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Click a usable chip to select it; hover a chip to see its details.</source>
        <translation>点击可用芯片即可选中；将鼠标悬停在芯片上查看详情。</translation>
    </message>
    <message>
        <source>Chip %1 — %2, NPU %3 die %4, health %5</source>
        <translation>芯片 %1 — %2，NPU %3 die %4，健康状况 %5</translation>
    </message>
    <message>
        <source>unknown model</source>
        <translation>型号未知</translation>
    </message>
    <message>
        <source>, %1 W</source>
        <translation>，%1 W</translation>
    </message>
    <message>
        <source>Usable: the last probe could open it inside a sandbox.</source>
        <translation>可用：上次探测能在沙箱内打开它。</translation>
    </message>
    <message>
        <source>Not usable: %1</source>
        <translation>不可用：%1</translation>
    </message>
    <message numerus="yes">
        <source>&amp;Run with %n selected chip(s)…</source>
        <translation>
            <numerusform>用 %n 个所选芯片运行(&amp;R)…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>runbox::console::OverviewPage</name>
    <message>
        <source>Overview</source>
        <translation>概览</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>代理</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>沙箱</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>出站</translation>
    </message>
    <message>
        <source>Executions</source>
        <translation>执行记录</translation>
    </message>
    <message>
        <source>NPU chips</source>
        <translation>NPU 芯片</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Sandbox conclusion</source>
        <translation>沙箱结论</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Runbox %1</source>
        <translation>Runbox %1</translation>
    </message>
    <message>
        <source>Protocol %1 · up %2</source>
        <translation>协议 %1 · 已运行 %2</translation>
    </message>
    <message>
        <source>Clock offset to this host: %1 (compensated)</source>
        <translation>与此主机的时钟偏差：%1（已补偿）</translation>
    </message>
    <message>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <source>%1 on disk</source>
        <translation>磁盘占用 %1</translation>
    </message>
    <message>
        <source>Disk use not reported by this agent</source>
        <translation>此代理未报告磁盘占用</translation>
    </message>
    <message>
        <source>%1 running</source>
        <translation>%1 个运行中</translation>
    </message>
    <message>
        <source>%1 queued</source>
        <translation>%1 个排队中</translation>
    </message>
    <message>
        <source>Default timeout %1</source>
        <translation>默认超时 %1</translation>
    </message>
    <message>
        <source>output kept up to %1</source>
        <translation>输出最多保留 %1</translation>
    </message>
    <message>
        <source>languages: %1</source>
        <translation>语言：%1</translation>
    </message>
    <message>
        <source>Managed executions are not offered by this agent yet.</source>
        <translation>此代理尚未提供托管执行。</translation>
    </message>
    <message>
        <source>?</source>
        <translation>?</translation>
    </message>
    <message>
        <source>%1+</source>
        <translation>%1+</translation>
    </message>
    <message>
        <source>This agent does not offer Ascend NPUs yet.</source>
        <translation>此代理尚未提供 Ascend NPU。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>No NPU on this host.</source>
        <translation>此主机没有 NPU。</translation>
    </message>
    <message>
        <source>%1 of %2 usable</source>
        <translation>%2 个中 %1 个可用</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>来源：%1</translation>
    </message>
</context>
<context>
    <name>runbox::console::PackagesDialog</name>
    <message>
        <source>Install packages into %1</source>
        <translation>向 %1 安装软件包</translation>
    </message>
    <message>
        <source>Uninstall packages from %1</source>
        <translation>从 %1 卸载软件包</translation>
    </message>
    <message>
        <source>Packages to install, one per line or separated by spaces, with optional version constraints (numpy, pandas&gt;=2,&lt;3). A new revision is built with the packages of the current one plus these; running executions keep theirs.</source>
        <translation>要安装的软件包，每行一个或以空格分隔，可带版本约束（numpy、pandas&gt;=2,&lt;3）。将以当前修订的软件包加上这些构建新修订；正在运行的执行保留原来的环境。</translation>
    </message>
    <message>
        <source>Packages to remove, one per line or separated by spaces. A new revision is built without them; running executions keep theirs.</source>
        <translation>要移除的软件包，每行一个或以空格分隔。将构建不含这些软件包的新修订；正在运行的执行保留原来的环境。</translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation>安装(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Uninstall</source>
        <translation>卸载(&amp;U)</translation>
    </message>
    <message>
        <source>In the current revision: %1</source>
        <translation>当前修订中：%1</translation>
    </message>
    <message>
        <source>Will send: %1</source>
        <translation>将发送：%1</translation>
    </message>
</context>
<context>
    <name>runbox::console::ProfileDialog</name>
    <message>
        <source>Add agent</source>
        <translation>添加代理</translation>
    </message>
    <message>
        <source>Edit agent</source>
        <translation>编辑代理</translation>
    </message>
    <message>
        <source>Token for %1</source>
        <translation>%1 的令牌</translation>
    </message>
    <message>
        <source>e.g. gpu-node-3</source>
        <translation>例如 gpu-node-3</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>不变</translation>
    </message>
    <message>
        <source>contents of agent.token</source>
        <translation>agent.token 的内容</translation>
    </message>
    <message>
        <source>Show the token</source>
        <translation>显示令牌</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>&amp;URL:</source>
        <translation>&amp;URL：</translation>
    </message>
    <message>
        <source>&amp;Token:</source>
        <translation>令牌(&amp;T)：</translation>
    </message>
    <message>
        <source>The token is kept in the system keychain. Where no keychain service is reachable it is kept for this session only, never in a file.</source>
        <translation>令牌保存在系统钥匙串中。无法访问钥匙串服务时，只在本次会话中保存，绝不会写入文件。</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Paste the agent&apos;s token (its agent.token file, or a workspace token).</source>
        <translation>请粘贴代理的令牌（agent.token 文件的内容，或工作区令牌）。</translation>
    </message>
    <message>
        <source>A token has no spaces.</source>
        <translation>令牌中不能有空格。</translation>
    </message>
    <message>
        <source>https:// agents: the SHA-256 fingerprint of its certificate, from runbox-agent --print-fingerprint on the agent&apos;s host. Empty: only a certificate your system trusts is accepted.</source>
        <translation>https:// 代理：其证书的 SHA-256 指纹，可在代理主机上用 runbox-agent --print-fingerprint 获取。留空：只接受系统信任的证书。</translation>
    </message>
    <message>
        <source>TLS &amp;fingerprint:</source>
        <translation>TLS 指纹(&amp;F)：</translation>
    </message>
    <message>
        <source>Connect through &amp;SSH</source>
        <translation>通过 &amp;SSH 连接</translation>
    </message>
    <message>
        <source>Runs your own ssh (your ssh_config, keys and agent; never a password prompt) with a local port forward to the agent.</source>
        <translation>运行您自己的 ssh（使用您的 ssh_config、密钥和 agent；从不询问密码），以本地端口转发连接到 agent。</translation>
    </message>
    <message>
        <source>ssh&apos;s default</source>
        <translation>ssh 默认值</translation>
    </message>
    <message>
        <source>Agent&apos;s unix socket</source>
        <translation>agent 的 Unix 套接字</translation>
    </message>
    <message>
        <source>Agent&apos;s TCP address</source>
        <translation>agent 的 TCP 地址</translation>
    </message>
    <message>
        <source>SSH &amp;host:</source>
        <translation>SSH 主机(&amp;H)：</translation>
    </message>
    <message>
        <source>SSH &amp;user:</source>
        <translation>SSH 用户(&amp;U)：</translation>
    </message>
    <message>
        <source>SSH &amp;port:</source>
        <translation>SSH 端口(&amp;P)：</translation>
    </message>
    <message>
        <source>&amp;Remote end:</source>
        <translation>远端(&amp;R)：</translation>
    </message>
    <message>
        <source>The remote socket must be an absolute path, e.g. %1.</source>
        <translation>远程套接字必须是绝对路径，例如 %1。</translation>
    </message>
    <message>
        <source>The remote address must be host:port, e.g. %1.</source>
        <translation>远程地址必须是 主机:端口，例如 %1。</translation>
    </message>
</context>
<context>
    <name>runbox::console::ProfileListModel</name>
    <message>
        <source>%1
%2
%3</source>
        <translation>%1
%2
%3</translation>
    </message>
    <message>
        <source>Not connected</source>
        <translation>未连接</translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotaEditor</name>
    <message>
        <source>Unlimited</source>
        <translation>不限</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>0 = no limit</source>
        <translation>0 = 不限</translation>
    </message>
    <message>
        <source>= %1 bytes</source>
        <translation>= %1 字节</translation>
    </message>
    <message>
        <source>= %1 bytes (not a whole hundredth of a GiB; kept exactly unless edited)</source>
        <translation>= %1 字节（不是 0.01 GiB 的整数倍；除非编辑，否则保持原值）</translation>
    </message>
    <message>
        <source>= %1</source>
        <translation>= %1</translation>
    </message>
    <message>
        <source> cores</source>
        <translation> 核</translation>
    </message>
    <message>
        <source>= %1 millicores (cgroup v2 cpu.max)</source>
        <translation>= %1 毫核（cgroup v2 cpu.max）</translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotaValues</name>
    <message>
        <source>(unset)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Workspace total</source>
        <translation>工作区总量</translation>
    </message>
    <message>
        <source>Retained output</source>
        <translation>保留的输出</translation>
    </message>
    <message>
        <source>Upload per file</source>
        <translation>单文件上传</translation>
    </message>
    <message>
        <source>Upload per request</source>
        <translation>单次请求上传</translation>
    </message>
    <message>
        <source>Default timeout</source>
        <translation>默认超时</translation>
    </message>
    <message>
        <source>Maximum timeout</source>
        <translation>最大超时</translation>
    </message>
    <message>
        <source>Concurrent executions</source>
        <translation>并发执行数</translation>
    </message>
    <message>
        <source>Light workspaces</source>
        <translation>轻量工作区</translation>
    </message>
    <message>
        <source>Disk a workspace may use (allocated blocks); an execution that grows past it ends as quota_exceeded.</source>
        <translation>一个工作区可使用的磁盘空间（按已分配块计算）；超出时执行以 quota_exceeded 结束。</translation>
    </message>
    <message>
        <source>Output kept per execution: head and tail are kept around a marker, the run never fails for it.</source>
        <translation>每次执行保留的输出：在标记前后保留开头和结尾，执行不会因此失败。</translation>
    </message>
    <message>
        <source>Largest single file accepted by the file API.</source>
        <translation>文件 API 接受的单个文件最大大小。</translation>
    </message>
    <message>
        <source>Largest upload request accepted by the file API.</source>
        <translation>文件 API 接受的单次上传请求最大大小。</translation>
    </message>
    <message>
        <source>Timeout of an execution that does not ask for one.</source>
        <translation>未指定超时的执行所使用的超时。</translation>
    </message>
    <message>
        <source>Longest timeout an execution may ask for.</source>
        <translation>执行可请求的最长超时。</translation>
    </message>
    <message>
        <source>Executions running at once on this host; later ones queue.</source>
        <translation>此主机上可同时运行的执行数；其余的排队等待。</translation>
    </message>
    <message>
        <source>%1 cannot be negative.</source>
        <translation>%1 不能为负数。</translation>
    </message>
    <message>
        <source>%1 is above the largest value the agent accepts (%2).</source>
        <translation>%1 超过代理接受的最大值（%2）。</translation>
    </message>
    <message>
        <source>The default timeout must be limited and no longer than the maximum timeout.</source>
        <translation>默认超时必须有限，且不能超过最大超时。</translation>
    </message>
    <message>
        <source>%1: %2 → %3, by %4, %5</source>
        <translation>%1：%2 → %3，操作者 %4，%5</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>%1 cores</source>
        <translation>%1 核</translation>
    </message>
    <message>
        <source>Memory per execution</source>
        <translation>每次执行的内存</translation>
    </message>
    <message>
        <source>Processes per execution</source>
        <translation>每次执行的进程数</translation>
    </message>
    <message>
        <source>CPU per execution</source>
        <translation>每次执行的 CPU</translation>
    </message>
    <message>
        <source>CPU time one execution may use per second, in cores (cgroup v2 cpu.max). Only hosts that delegate the cpu controller enforce it; elsewhere executions under a limit are refused.</source>
        <translation>一次执行每秒可使用的 CPU 时间，以核为单位（cgroup v2 cpu.max）。只有委派了 cpu 控制器的主机才能强制执行；其他主机会拒绝带限制的执行。</translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotasPage</name>
    <message>
        <source>Quotas</source>
        <translation>配额</translation>
    </message>
    <message>
        <source>Limits in force for new executions</source>
        <translation>对新执行生效的限制</translation>
    </message>
    <message>
        <source>Sizes are in GiB (1 GiB = 2³⁰ bytes). 0 or Unlimited means no limit. A change applies to executions created after it; running ones keep the limits they started with.</source>
        <translation>大小以 GiB 为单位（1 GiB = 2³⁰ 字节）。0 或“不限”表示没有限制。修改只对之后创建的执行生效；正在运行的执行保持启动时的限制。</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>应用(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Revert</source>
        <translation>还原(&amp;R)</translation>
    </message>
    <message>
        <source>Send the changed quotas to the agent</source>
        <translation>将修改后的配额发送给代理</translation>
    </message>
    <message>
        <source>Show the agent&apos;s values again</source>
        <translation>重新显示代理的值</translation>
    </message>
    <message>
        <source>Last change</source>
        <translation>最近一次修改</translation>
    </message>
    <message>
        <source>quota settings</source>
        <translation>配额设置</translation>
    </message>
    <message>
        <source>Could not read the quotas</source>
        <translation>无法读取配额</translation>
    </message>
    <message>
        <source>No change is recorded, or this agent does not report its audit trail with the quotas.</source>
        <translation>没有记录任何修改，或此代理未随配额一起报告审计记录。</translation>
    </message>
    <message>
        <source>The agent refused the quotas (HTTP %1): %2</source>
        <translation>代理拒绝了这些配额（HTTP %1）：%2</translation>
    </message>
    <message>
        <source>Quotas applied.</source>
        <translation>配额已应用。</translation>
    </message>
</context>
<context>
    <name>runbox::console::RunDialog</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>New run</source>
        <translation>新建运行</translation>
    </message>
    <message>
        <source>New strong workspace</source>
        <translation>新建强隔离工作区</translation>
    </message>
    <message>
        <source>Shell (bash)</source>
        <translation>Shell（bash）</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>R</source>
        <translation>R</translation>
    </message>
    <message>
        <source>Not installed on this host</source>
        <translation>此主机上未安装</translation>
    </message>
    <message>
        <source>workspace root</source>
        <translation>工作区根目录</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>agent default</source>
        <translation>代理默认值</translation>
    </message>
    <message>
        <source>none (e.g. 2, 5)</source>
        <translation>无（例如 2, 5）</translation>
    </message>
    <message>
        <source>Add a variable</source>
        <translation>添加变量</translation>
    </message>
    <message>
        <source>Remove the selected variable</source>
        <translation>移除所选变量</translation>
    </message>
    <message>
        <source>&amp;Workspace:</source>
        <translation>工作区(&amp;W)：</translation>
    </message>
    <message>
        <source>&amp;Kind:</source>
        <translation>类型(&amp;K)：</translation>
    </message>
    <message>
        <source>&amp;Script:</source>
        <translation>脚本(&amp;S)：</translation>
    </message>
    <message>
        <source>Working &amp;directory:</source>
        <translation>工作目录(&amp;D)：</translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation>环境变量(&amp;E)：</translation>
    </message>
    <message>
        <source>&amp;Timeout:</source>
        <translation>超时(&amp;T)：</translation>
    </message>
    <message>
        <source>NPU &amp;chips:</source>
        <translation>NPU 芯片(&amp;C)：</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Chips are logic ids separated by commas, e.g. 2, 5.</source>
        <translation>芯片为逻辑 ID，用逗号分隔，例如 2, 5。</translation>
    </message>
    <message>
        <source>None (the host&apos;s interpreters)</source>
        <translation>无（使用主机的解释器）</translation>
    </message>
    <message>
        <source>A science environment from the Environments page: the run sees its packages at /opt/science-env (strong workspaces)</source>
        <translation>“环境”页面中的科学计算环境：运行时可在 /opt/science-env 看到其软件包（仅限强隔离工作区）</translation>
    </message>
    <message>
        <source>Science en&amp;vironment:</source>
        <translation>科学计算环境(&amp;V)：</translation>
    </message>
    <message>
        <source>This agent has no science environments yet.</source>
        <translation>此代理尚不支持科学计算环境。</translation>
    </message>
    <message>
        <source>%1 (%2, %3)</source>
        <translation>%1（%2，%3）</translation>
    </message>
    <message>
        <source>No ready revision yet (%1)</source>
        <translation>尚无就绪的修订（%1）</translation>
    </message>
    <message>
        <source>This light workspace was created without a science environment: choose none, or a strong or new workspace (a light workspace gets its environment when it is created).</source>
        <translation>此轻量工作区创建时未带科学环境：请选择“无”，或选择强隔离工作区或新建工作区（轻量工作区在创建时获得其环境）。</translation>
    </message>
    <message>
        <source>This light workspace runs the science environment it was created with (%1): choose that one.</source>
        <translation>此轻量工作区运行创建时所带的科学环境（%1）：请选择该环境。</translation>
    </message>
</context>
<context>
    <name>runbox::console::RunRequest</name>
    <message>
        <source>The working directory is relative to the workspace: remove the leading &apos;/&apos;.</source>
        <translation>工作目录是相对于工作区的：请去掉开头的“/”。</translation>
    </message>
    <message>
        <source>The working directory may not contain NUL or &apos;\&apos;.</source>
        <translation>工作目录不能包含 NUL 或“\”。</translation>
    </message>
    <message>
        <source>The working directory is longer than 4096 bytes.</source>
        <translation>工作目录超过 4096 字节。</translation>
    </message>
    <message>
        <source>The working directory may not contain &apos;.&apos;, &apos;..&apos; or empty segments.</source>
        <translation>工作目录不能包含“.”、“..”或空段。</translation>
    </message>
    <message>
        <source>Choose shell, Python or R.</source>
        <translation>请选择 shell、Python 或 R。</translation>
    </message>
    <message>
        <source>The script is empty.</source>
        <translation>脚本为空。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid environment variable name.</source>
        <translation>“%1”不是有效的环境变量名。</translation>
    </message>
    <message>
        <source>The variable %1 is set twice.</source>
        <translation>变量 %1 被设置了两次。</translation>
    </message>
    <message>
        <source>The timeout cannot be negative.</source>
        <translation>超时不能为负数。</translation>
    </message>
</context>
<context>
    <name>runbox::console::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source> Mi characters</source>
        <translation> Mi 个字符</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <source>Log view &amp;keeps:</source>
        <translation>日志视图保留(&amp;K)：</translation>
    </message>
    <message>
        <source>A new language applies the next time the console starts.</source>
        <translation>新语言将在下次启动控制台时生效。</translation>
    </message>
    <message>
        <source>The ssh that SSH profiles run: a name on PATH or a path, e.g. a wrapper that adds options. Applies to connections opened from now on.</source>
        <translation>SSH 配置文件运行的 ssh：PATH 中的名称或路径，例如添加选项的包装脚本。对此后打开的连接生效。</translation>
    </message>
    <message>
        <source>SSH &amp;program:</source>
        <translation>SSH 程序(&amp;P)：</translation>
    </message>
    <message>
        <source>The fleet file: the agents list, shared with the runbox CLI and the Python client (--fleet to use another).</source>
        <translation>fleet 文件：代理列表，与 runbox CLI 和 Python 客户端共用（用 --fleet 指定其他文件）。</translation>
    </message>
    <message>
        <source>Agents are kept in:</source>
        <translation>代理保存在：</translation>
    </message>
</context>
<context>
    <name>runbox::console::SshTunnel</name>
    <message numerus="yes">
        <source>ssh did not open the local port within %n s.</source>
        <translation>
            <numerusform>ssh 未在 %n 秒内打开本地端口。</numerusform>
        </translation>
    </message>
    <message>
        <source>No free local port for the SSH tunnel.</source>
        <translation>没有可用于 SSH 隧道的空闲本地端口。</translation>
    </message>
    <message>
        <source>Cannot run %1: %2</source>
        <translation>无法运行 %1：%2</translation>
    </message>
    <message>
        <source>ssh was killed.</source>
        <translation>ssh 被强制终止。</translation>
    </message>
    <message>
        <source>ssh exited with status %1.</source>
        <translation>ssh 已退出，状态码 %1。</translation>
    </message>
</context>
<context>
    <name>runbox::console::TokenVault</name>
    <message>
        <source>Tokens are kept for this session only (keychain disabled).</source>
        <translation>令牌仅在本次会话中保存（钥匙串已禁用）。</translation>
    </message>
    <message>
        <source>No keychain service is reachable (%1). Tokens are kept for this session only and are never written to disk; you will be asked again next time.</source>
        <translation>无法访问任何钥匙串服务（%1）。令牌仅在本次会话中保存，绝不会写入磁盘；下次会再次询问您。</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>未知错误</translation>
    </message>
</context>
<context>
    <name>runbox::console::TransferPanel</name>
    <message>
        <source>Transfers</source>
        <translation>传输</translation>
    </message>
    <message>
        <source>C&amp;lear finished</source>
        <translation>清除已结束(&amp;L)</translation>
    </message>
    <message>
        <source>↑ %1 → %2</source>
        <translation>↑ %1 → %2</translation>
    </message>
    <message>
        <source>↓ %1 → %2</source>
        <translation>↓ %1 → %2</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>%p% of %1</source>
        <translation>%1 的 %p%</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspaceInfo</name>
    <message>
        <source>Strong</source>
        <translation>强隔离</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>轻量</translation>
    </message>
    <message>
        <source>Background processes killed (%1)</source>
        <translation>后台进程已被终止（%1）</translation>
    </message>
    <message>
        <source>Background processes killed (%1): %2</source>
        <translation>后台进程已被终止（%1）：%2</translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspaceTableModel</name>
    <message>
        <source>Confinement: %1</source>
        <translation>隔离限制：%1</translation>
    </message>
    <message>
        <source>never evicted</source>
        <translation>永不回收</translation>
    </message>
    <message>
        <source>evicted after %1 s idle</source>
        <translation>空闲 %1 秒后回收</translation>
    </message>
    <message>
        <source>kept for this session</source>
        <translation>本次会话内保留</translation>
    </message>
    <message>
        <source>The scoped token of this workspace is kept in memory until the console closes; it is never written to disk.</source>
        <translation>此工作区的限定令牌保存在内存中，直到控制台关闭；绝不会写入磁盘。</translation>
    </message>
    <message>
        <source>The agent gives a workspace&apos;s token only when it is created: tokens of workspaces made elsewhere cannot be copied here.</source>
        <translation>代理仅在创建工作区时给出其令牌：在别处创建的工作区的令牌无法在此复制。</translation>
    </message>
    <message>
        <source>build workspace of environment %1</source>
        <translation>环境 %1 的构建工作区</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Isolation</source>
        <translation>隔离级别</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>UID</source>
        <translation>UID</translation>
    </message>
    <message>
        <source>Idle timeout</source>
        <translation>空闲超时</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>令牌</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>As the agent said when the workspace was created.</source>
        <translation>按代理创建工作区时的说明。</translation>
    </message>
    <message>
        <source>Not measured yet.</source>
        <translation>尚未测量。</translation>
    </message>
    <message>
        <source>%1 bytes on disk, as the workspace quota counts them.</source>
        <translation>磁盘上 %1 字节（按工作区配额的计算方式）。</translation>
    </message>
    <message>
        <source>At least %1 bytes: the walk stopped at the agent&apos;s entry cap.</source>
        <translation>至少 %1 字节：遍历在代理的条目上限处停止。</translation>
    </message>
    <message>
        <source>%1, last %2</source>
        <translation>%1，最近一次 %2</translation>
    </message>
    <message>
        <source>Executions the agent keeps records of (managed runs, environment builds, NPU jobs; sync executions are not recorded) and when the newest was started.</source>
        <translation>代理保留记录的执行（托管运行、环境构建、NPU 作业；同步执行不记录）以及最近一次的开始时间。</translation>
    </message>
    <message>
        <source>runs environment %1</source>
        <translation>运行环境 %1</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Executions</source>
        <translation>执行记录</translation>
    </message>
    <message>
        <source>evicted at %1 if idle</source>
        <translation>若仍空闲，将于 %1 回收</translation>
    </message>
    <message>
        <source>in use (evicted after %1 s idle)</source>
        <translation>使用中（空闲 %1 秒后回收）</translation>
    </message>
    <message>
        <source>Evicted after %1 s without use; last used %2.</source>
        <translation>%1 秒未使用即回收；最近一次使用于 %2。</translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspacesPage</name>
    <message>
        <source>Workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>&amp;Create…</source>
        <translation>创建(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <source>Copy &amp;token</source>
        <translation>复制令牌(&amp;T)</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <source>Create one strong workspace or a batch of light ones</source>
        <translation>创建一个强隔离工作区或一批轻量工作区</translation>
    </message>
    <message>
        <source>Delete the selected workspaces and their files</source>
        <translation>删除所选工作区及其文件</translation>
    </message>
    <message>
        <source>Copy the scoped token of a workspace created in this session</source>
        <translation>复制本次会话中创建的工作区的限定令牌</translation>
    </message>
    <message>
        <source>The agent gives a workspace&apos;s scoped token only when it is created: the console keeps the tokens of the workspaces created here in memory for this session only and never writes them to disk.</source>
        <translation>代理仅在创建工作区时给出其限定令牌：控制台只在本次会话期间将此处创建的工作区令牌保存在内存中，绝不写入磁盘。</translation>
    </message>
    <message>
        <source>workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Could not read the workspaces</source>
        <translation>无法读取工作区</translation>
    </message>
    <message>
        <source>Light tier: %1 of %2 workspaces</source>
        <translation>轻量层：%1 / %2 个工作区</translation>
    </message>
    <message>
        <source>Light tier: %1 workspaces, no capacity set</source>
        <translation>轻量层：%1 个工作区，未设容量</translation>
    </message>
    <message>
        <source>idle light workspaces evicted after %1 s by default</source>
        <translation>空闲的轻量工作区默认在 %1 秒后回收</translation>
    </message>
    <message>
        <source>Light tier unavailable: %1</source>
        <translation>轻量层不可用：%1</translation>
    </message>
    <message>
        <source>Creating workspaces…</source>
        <translation>正在创建工作区…</translation>
    </message>
    <message>
        <source>Could not create workspaces: %1</source>
        <translation>无法创建工作区：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) created.</source>
        <translation>
            <numerusform>已创建 %n 个工作区。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not made: the agent&apos;s capacity for them is used up (its light-workspace quota or its pool&apos;s capacity).</source>
        <translation>
            <numerusform>%n 个未创建：代理的容量已用尽（轻量工作区配额或其池的容量）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Delete workspaces</source>
        <translation>删除工作区</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n workspace(s) and every file in them? This cannot be undone.</source>
        <translation>
            <numerusform>删除 %n 个工作区及其中所有文件？此操作无法撤销。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleting %n workspace(s)…</source>
        <translation>
            <numerusform>正在删除 %n 个工作区…</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1:%2</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) not deleted:</source>
        <translation>
            <numerusform>%n 个工作区未删除：</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) deleted.</source>
        <translation>
            <numerusform>已删除 %n 个工作区。</numerusform>
        </translation>
    </message>
    <message>
        <source>No token kept for this workspace: the agent gives it only when the workspace is created.</source>
        <translation>未保存此工作区的令牌：代理仅在创建工作区时给出令牌。</translation>
    </message>
    <message>
        <source>Token of %1 copied to the clipboard.</source>
        <translation>%1 的令牌已复制到剪贴板。</translation>
    </message>
    <message>
        <source>Open &amp;files</source>
        <translation>打开文件(&amp;F)</translation>
    </message>
    <message>
        <source>Browse the files of the selected workspace</source>
        <translation>浏览所选工作区的文件</translation>
    </message>
</context>
</TS>
