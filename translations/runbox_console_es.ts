<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es">
<context>
    <name>runbox::NetworkPolicyGrammar</name>
    <message>
        <source>empty host name</source>
        <translation>nombre de host vacío</translation>
    </message>
    <message>
        <source>IP literals are not allowed; use a domain name</source>
        <translation>no se permiten direcciones IP; usa un nombre de dominio</translation>
    </message>
    <message>
        <source>not a valid domain name</source>
        <translation>no es un nombre de dominio válido</translation>
    </message>
    <message>
        <source>a single label is not allowed; name a domain such as example.org</source>
        <translation>no se permite una sola etiqueta; indica un dominio como example.org</translation>
    </message>
    <message>
        <source>labels must be letters, digits and inner hyphens, 1-63 characters</source>
        <translation>las etiquetas deben tener letras, dígitos y guiones internos, de 1 a 63 caracteres</translation>
    </message>
    <message>
        <source>empty entry</source>
        <translation>entrada vacía</translation>
    </message>
    <message>
        <source>&apos;/&apos;, &apos;@&apos; and whitespace are not allowed</source>
        <translation>no se permiten &apos;/&apos;, &apos;@&apos; ni espacios</translation>
    </message>
    <message>
        <source>&apos;*&apos; is only allowed as a leading &quot;*.&quot;</source>
        <translation>&apos;*&apos; solo se permite como prefijo &quot;*.&quot;</translation>
    </message>
    <message>
        <source>bad port (must be 1-65535)</source>
        <translation>puerto no válido (debe ser 1-65535)</translation>
    </message>
    <message>
        <source>not an address prefix such as 10.0.0.0/8 or fd00::/8</source>
        <translation>no es un prefijo de direcciones como 10.0.0.0/8 o fd00::/8</translation>
    </message>
    <message>
        <source>enter a host name such as pypi.org or pypi.org:443</source>
        <translation>escribe un nombre de host como pypi.org o pypi.org:443</translation>
    </message>
    <message>
        <source>IP addresses are never allowed; egress admits domain names only</source>
        <translation>nunca se permiten direcciones IP; la salida solo admite nombres de dominio</translation>
    </message>
    <message>
        <source>no domain is allowed</source>
        <translation>no se permite ningún dominio</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentConnection</name>
    <message>
        <source>Disconnected</source>
        <translation>Desconectado</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Conectando…</translation>
    </message>
    <message>
        <source>Connected</source>
        <translation>Conectado</translation>
    </message>
    <message numerus="yes">
        <source>Reconnecting in %n s</source>
        <translation>
            <numerusform>Reconectando en %n s</numerusform>
            <numerusform>Reconectando en %n s</numerusform>
        </translation>
    </message>
    <message>
        <source>Token refused</source>
        <translation>Token rechazado</translation>
    </message>
    <message>
        <source>Incompatible agent</source>
        <translation>Agente incompatible</translation>
    </message>
    <message>
        <source>Disconnected from %1.</source>
        <translation>Desconectado de %1.</translation>
    </message>
    <message>
        <source>%1 does not answer like a Runbox agent (HTTP %2).</source>
        <translation>%1 no responde como un agente de Runbox (HTTP %2).</translation>
    </message>
    <message>
        <source>The agent refused the token: %1</source>
        <translation>El agente rechazó el token: %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Health check failed (HTTP %1): %2</source>
        <translation>Falló la comprobación de estado (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Connected to %1 (agent %2).</source>
        <translation>Conectado a %1 (agente %2).</translation>
    </message>
    <message>
        <source>Reconnected to %1.</source>
        <translation>Reconectado a %1.</translation>
    </message>
    <message numerus="yes">
        <source>Lost connection to %1 (%2); reconnecting in %n s.</source>
        <translation>
            <numerusform>Se perdió la conexión con %1 (%2); reconectando en %n s.</numerusform>
            <numerusform>Se perdió la conexión con %1 (%2); reconectando en %n s.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>no answer within %n s</source>
        <translation>
            <numerusform>sin respuesta en %n s</numerusform>
            <numerusform>sin respuesta en %n s</numerusform>
        </translation>
    </message>
    <message>
        <source>Certificate refused</source>
        <translation>Certificado rechazado</translation>
    </message>
    <message>
        <source>To trust this agent, compare the fingerprint with the output of runbox-agent --print-fingerprint on its host, then enter it as the agent&apos;s TLS fingerprint (Edit agent).</source>
        <translation>Para confiar en este agente, compare la huella con la salida de runbox-agent --print-fingerprint en su host y luego introdúzcala como huella TLS del agente (Editar agente).</translation>
    </message>
    <message>
        <source>Opening SSH tunnel…</source>
        <translation>Abriendo el túnel SSH…</translation>
    </message>
    <message numerus="yes">
        <source>SSH tunnel failed (%1); retrying in %n s</source>
        <translation>
            <numerusform>Falló el túnel SSH (%1); reintento en %n s</numerusform>
            <numerusform>Falló el túnel SSH (%1); reintento en %n s</numerusform>
        </translation>
    </message>
    <message>
        <source>SSH tunnel: %1</source>
        <translation>Túnel SSH: %1</translation>
    </message>
    <message>
        <source>%1 (ssh: %2)</source>
        <translation>%1 (ssh: %2)</translation>
    </message>
    <message>
        <source>SSH refused: %1</source>
        <translation>SSH rechazó la conexión: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentListActions</name>
    <message>
        <source>Agents</source>
        <translation>Agentes</translation>
    </message>
    <message>
        <source>The agents list could not be read: %1</source>
        <translation>No se pudo leer la lista de agentes: %1</translation>
    </message>
    <message>
        <source>The agents list was not saved: %1</source>
        <translation>La lista de agentes no se guardó: %1</translation>
    </message>
    <message>
        <source>Remove agent</source>
        <translation>Quitar agente</translation>
    </message>
    <message>
        <source>Remove %1 and forget its token?</source>
        <translation>¿Quitar %1 y olvidar su token?</translation>
    </message>
    <message>
        <source>Agent certificate</source>
        <translation>Certificado del agente</translation>
    </message>
    <message>
        <source>%1 presents a certificate no authority vouches for. Its SHA-256 fingerprint is:

%2

Compare it with the output of runbox-agent --print-fingerprint on the agent&apos;s host (or its log). Pin it and connect only if they are the same.</source>
        <translation>%1 presenta un certificado que ninguna autoridad avala. Su huella SHA-256 es:

%2

Compárela con la salida de runbox-agent --print-fingerprint en el host del agente (o con su registro). Fíjela y conéctese solo si son iguales.</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentPage</name>
    <message>
        <source>No agent selected</source>
        <translation>Ningún agente seleccionado</translation>
    </message>
    <message>
        <source>Add an agent or pick one in the list on the left, then connect.</source>
        <translation>Añade un agente o elige uno de la lista de la izquierda y conéctate.</translation>
    </message>
    <message>
        <source>Not connected</source>
        <translation>No conectado</translation>
    </message>
    <message>
        <source>Waiting for %1: %2</source>
        <translation>Esperando a %1: %2</translation>
    </message>
    <message>
        <source>Not offered by this agent yet</source>
        <translation>Este agente aún no lo ofrece</translation>
    </message>
    <message>
        <source>%1 does not offer %2 yet (%3 is not there). The page lights up by itself once the agent is upgraded.</source>
        <translation>%1 aún no ofrece %2 (no existe %3). La página se activará sola cuando se actualice el agente.</translation>
    </message>
    <message>
        <source>The agent</source>
        <translation>El agente</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentProfile</name>
    <message>
        <source>Give the agent a name.</source>
        <translation>Dale un nombre al agente.</translation>
    </message>
    <message>
        <source>The URL must start with http:// or https://, e.g. http://127.0.0.1:4311.</source>
        <translation>La URL debe empezar por http:// o https://, p. ej. http://127.0.0.1:4311.</translation>
    </message>
    <message>
        <source>The URL has no host.</source>
        <translation>La URL no tiene host.</translation>
    </message>
    <message>
        <source>The URL must be the agent&apos;s base address, without a path.</source>
        <translation>La URL debe ser la dirección base del agente, sin ruta.</translation>
    </message>
    <message>
        <source>The TLS fingerprint must be the agent&apos;s SHA-256 fingerprint (AB:CD:…, as runbox-agent --print-fingerprint prints it).</source>
        <translation>La huella TLS debe ser la huella SHA-256 del agente (AB:CD:…, como la imprime runbox-agent --print-fingerprint).</translation>
    </message>
    <message>
        <source>A TLS fingerprint needs an https:// URL.</source>
        <translation>Una huella TLS requiere una URL https://.</translation>
    </message>
    <message>
        <source>Give the SSH host.</source>
        <translation>Indique el host SSH.</translation>
    </message>
    <message>
        <source>The SSH host must be a host name or address (no spaces, no leading &apos;-&apos;, no &apos;@&apos;, &apos;:&apos; or &apos;/&apos;).</source>
        <translation>El host SSH debe ser un nombre de host o una dirección (sin espacios, sin &apos;-&apos; inicial, sin &apos;@&apos;, &apos;:&apos; ni &apos;/&apos;).</translation>
    </message>
    <message>
        <source>The SSH user must be a user name (no spaces, no leading &apos;-&apos;).</source>
        <translation>El usuario SSH debe ser un nombre de usuario (sin espacios, sin &apos;-&apos; inicial).</translation>
    </message>
    <message>
        <source>The SSH port must be between 1 and 65535.</source>
        <translation>El puerto SSH debe estar entre 1 y 65535.</translation>
    </message>
    <message>
        <source>The remote end has no spaces.</source>
        <translation>El extremo remoto no lleva espacios.</translation>
    </message>
    <message>
        <source>The remote socket must be an absolute path, e.g. %1.</source>
        <translation>El socket remoto debe ser una ruta absoluta, p. ej. %1.</translation>
    </message>
    <message>
        <source>The remote address must be host:port, e.g. %1.</source>
        <translation>La dirección remota debe ser host:puerto, p. ej. %1.</translation>
    </message>
    <message>
        <source>A TLS fingerprint needs an https:// URL; an SSH profile speaks plain HTTP inside the tunnel.</source>
        <translation>Una huella TLS requiere una URL https://; un perfil SSH habla HTTP simple dentro del túnel.</translation>
    </message>
    <message>
        <source>A unix-socket agent is reached through SSH: choose &quot;Connect through SSH&quot; and give the socket as the remote end.</source>
        <translation>A un agente con socket unix se llega por SSH: elija «Conectar mediante SSH» e indique el socket como extremo remoto.</translation>
    </message>
    <message>
        <source>The name must be 1-64 letters, digits, &apos;_&apos; or &apos;-&apos; (it names the agent in the fleet file that the CLI reads too).</source>
        <translation>El nombre debe tener de 1 a 64 letras, dígitos, &apos;_&apos; o &apos;-&apos; (nombra al agente en el archivo de flota que también lee la CLI).</translation>
    </message>
</context>
<context>
    <name>runbox::console::ChipTileDelegate</name>
    <message>
        <source>health ?</source>
        <translation>estado ?</translation>
    </message>
    <message>
        <source>%1  ·  AI core %2</source>
        <translation>%1  ·  AI core %2</translation>
    </message>
    <message>
        <source>%1 °C</source>
        <translation>%1 °C</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
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
        <translation>En uso · %1</translation>
    </message>
    <message>
        <source>In use by %1 · %2</source>
        <translation>En uso por %1 · %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::ConnectionManager</name>
    <message>
        <source>No token is stored for %1.</source>
        <translation>No hay ningún token guardado para %1.</translation>
    </message>
    <message>
        <source>%1: no pool host nonce to derive its token from (%2).</source>
        <translation>%1: no hay nonce de host del pool del que derivar su token (%2).</translation>
    </message>
    <message>
        <source>the agent shows none: is it started with --pool-secret-file?</source>
        <translation>el agente no muestra ninguno: ¿se inició con --pool-secret-file?</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::CreateWorkspaceDialog</name>
    <message>
        <source>Create workspaces</source>
        <translation>Crear espacios de trabajo</translation>
    </message>
    <message>
        <source>&amp;Strong: its own sandbox per execution (one workspace)</source>
        <translation>&amp;Fuerte: su propio sandbox en cada ejecución (un espacio de trabajo)</translation>
    </message>
    <message>
        <source>&amp;Light: own uid, Landlock and rlimits (a batch)</source>
        <translation>&amp;Ligero: uid propio, Landlock y rlimits (un lote)</translation>
    </message>
    <message>
        <source>This agent cannot make light workspaces: %1</source>
        <translation>Este agente no puede crear espacios de trabajo ligeros: %1</translation>
    </message>
    <message>
        <source>&amp;Create</source>
        <translation>&amp;Crear</translation>
    </message>
    <message>
        <source>How many:</source>
        <translation>Cuántos:</translation>
    </message>
    <message>
        <source>Up to %1 light workspaces at once; past the agent&apos;s capacity the answer says how many were not made.</source>
        <translation>Hasta %1 espacios de trabajo ligeros a la vez; si se supera la capacidad del agente, la respuesta indica cuántos no se crearon.</translation>
    </message>
    <message>
        <source>Strong workspaces are created one at a time.</source>
        <translation>Los espacios de trabajo fuertes se crean de uno en uno.</translation>
    </message>
</context>
<context>
    <name>runbox::console::EntryListModel</name>
    <message>
        <source>%1: refused — %2</source>
        <translation>%1: rechazada — %2</translation>
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
        <translation>Los nombres llevan letras, dígitos y &apos;_&apos;, y no empiezan por un dígito.</translation>
    </message>
    <message>
        <source>%1 is already set above.</source>
        <translation>%1 ya está definida más arriba.</translation>
    </message>
    <message>
        <source>Variable</source>
        <translation>Variable</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Valor</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentInfo</name>
    <message>
        <source>Building</source>
        <translation>Construyendo</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Listo</translation>
    </message>
    <message>
        <source>Build failed</source>
        <translation>Falló la construcción</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Desconocido</translation>
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
        <translation>Indique al menos un paquete.</translation>
    </message>
    <message>
        <source>At most %1 packages at once.</source>
        <translation>Como máximo %1 paquetes a la vez.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is longer than %2 characters.</source>
        <translation>&quot;%1&quot; tiene más de %2 caracteres.</translation>
    </message>
    <message>
        <source>&quot;%1&quot;: pip options are not allowed.</source>
        <translation>&quot;%1&quot;: no se permiten opciones de pip.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; looks like a path or a URL: only package names and version constraints are allowed.</source>
        <translation>&quot;%1&quot; parece una ruta o una URL: solo se permiten nombres de paquete y restricciones de versión.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a package name with optional version constraints (e.g. numpy, pandas&gt;=2,&lt;3).</source>
        <translation>&quot;%1&quot; no es un nombre de paquete con restricciones de versión opcionales (p. ej. numpy, pandas&gt;=2,&lt;3).</translation>
    </message>
    <message>
        <source>Give the environment a name.</source>
        <translation>Dé un nombre al entorno.</translation>
    </message>
    <message>
        <source>A name is 1–80 letters, digits, spaces, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;, starting with a letter or digit.</source>
        <translation>Un nombre tiene de 1 a 80 letras, dígitos, espacios, &apos;.&apos;, &apos;_&apos; o &apos;-&apos;, y empieza por una letra o un dígito.</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentTableModel</name>
    <message>
        <source>%1 (%2, provisioner %3)</source>
        <translation>%1 (%2, aprovisionador %3)</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>ninguna aún</translation>
    </message>
    <message>
        <source>Revisions built so far: %1</source>
        <translation>Revisiones construidas hasta ahora: %1</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nombre</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Lenguaje</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Current revision</source>
        <translation>Revisión actual</translation>
    </message>
    <message>
        <source>Last build failure</source>
        <translation>Último fallo de construcción</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentsPage</name>
    <message>
        <source>Environments</source>
        <translation>Entornos</translation>
    </message>
    <message>
        <source>&amp;New…</source>
        <translation>&amp;Nuevo…</translation>
    </message>
    <message>
        <source>&amp;Install packages…</source>
        <translation>&amp;Instalar paquetes…</translation>
    </message>
    <message>
        <source>&amp;Uninstall packages…</source>
        <translation>&amp;Desinstalar paquetes…</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>&amp;Eliminar</translation>
    </message>
    <message>
        <source>R&amp;un in this environment…</source>
        <translation>Ejec&amp;utar en este entorno…</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>Actuali&amp;zar</translation>
    </message>
    <message>
        <source>Create an environment (its first revision is a bare one)</source>
        <translation>Crear un entorno (su primera revisión es un entorno vacío)</translation>
    </message>
    <message>
        <source>Build a new revision with more packages</source>
        <translation>Construir una revisión nueva con más paquetes</translation>
    </message>
    <message>
        <source>Build a new revision without some packages</source>
        <translation>Construir una revisión nueva sin algunos paquetes</translation>
    </message>
    <message>
        <source>Delete the environment and every revision of it</source>
        <translation>Eliminar el entorno y todas sus revisiones</translation>
    </message>
    <message>
        <source>#</source>
        <translation>N.º</translation>
    </message>
    <message>
        <source>Revision</source>
        <translation>Revisión</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Packages</source>
        <translation>Paquetes</translation>
    </message>
    <message>
        <source>Built</source>
        <translation>Construida</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Motivo</translation>
    </message>
    <message>
        <source>Package</source>
        <translation>Paquete</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>Versión</translation>
    </message>
    <message>
        <source>Revisions (newest first):</source>
        <translation>Revisiones (la más reciente primero):</translation>
    </message>
    <message>
        <source>science environments</source>
        <translation>entornos científicos</translation>
    </message>
    <message>
        <source>Could not read the environments</source>
        <translation>No se pudieron leer los entornos</translation>
    </message>
    <message>
        <source>Select an environment to see its revisions and packages.</source>
        <translation>Seleccione un entorno para ver sus revisiones y paquetes.</translation>
    </message>
    <message>
        <source>Could not read the revisions: %1</source>
        <translation>No se pudieron leer las revisiones: %1</translation>
    </message>
    <message>
        <source>%1 (current)</source>
        <translation>%1 (actual)</translation>
    </message>
    <message>
        <source>%1 (files removed)</source>
        <translation>%1 (archivos eliminados)</translation>
    </message>
    <message>
        <source>(bare)</source>
        <translation>(vacío)</translation>
    </message>
    <message>
        <source>Build execution: %1</source>
        <translation>Ejecución de la construcción: %1</translation>
    </message>
    <message>
        <source>No revision yet.</source>
        <translation>Todavía no hay revisiones.</translation>
    </message>
    <message>
        <source>Revision %1 is building: its packages are listed once it is ready.</source>
        <translation>La revisión %1 se está construyendo: sus paquetes se listan cuando esté lista.</translation>
    </message>
    <message>
        <source>Revision %1 failed and has no packages: %2</source>
        <translation>La revisión %1 falló y no tiene paquetes: %2</translation>
    </message>
    <message>
        <source>Reading the packages of %1…</source>
        <translation>Leyendo los paquetes de %1…</translation>
    </message>
    <message>
        <source>Could not read the packages: %1</source>
        <translation>No se pudieron leer los paquetes: %1</translation>
    </message>
    <message>
        <source>Packages of %1 (%2 in all), SHA-256 %3</source>
        <translation>Paquetes de %1 (%2 en total), SHA-256 %3</translation>
    </message>
    <message>
        <source>Delete environment</source>
        <translation>Eliminar entorno</translation>
    </message>
    <message>
        <source>Delete the environment %1 (%2) and all %3 of its revisions? Executions can no longer use it.</source>
        <translation>¿Eliminar el entorno %1 (%2) y sus %3 revisiones? Las ejecuciones ya no podrán usarlo.</translation>
    </message>
    <message>
        <source>Creating the environment %1…</source>
        <translation>Creando el entorno %1…</translation>
    </message>
    <message>
        <source>Could not create %1: %2</source>
        <translation>No se pudo crear %1: %2</translation>
    </message>
    <message>
        <source>This agent cannot uninstall packages yet (%1 is not there).</source>
        <translation>Este agente aún no puede desinstalar paquetes (%1 no existe).</translation>
    </message>
    <message>
        <source>Could not install: %1</source>
        <translation>No se pudo instalar: %1</translation>
    </message>
    <message>
        <source>Could not uninstall: %1</source>
        <translation>No se pudo desinstalar: %1</translation>
    </message>
    <message>
        <source>Building a new revision of %1 (execution %2)…</source>
        <translation>Construyendo una revisión nueva de %1 (ejecución %2)…</translation>
    </message>
    <message>
        <source>Could not delete %1: %2</source>
        <translation>No se pudo eliminar %1: %2</translation>
    </message>
    <message>
        <source>Environment %1 deleted.</source>
        <translation>Entorno %1 eliminado.</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionFollower</name>
    <message>
        <source>Could not read the execution record: %1</source>
        <translation>No se pudo leer el registro de la ejecución: %1</translation>
    </message>
    <message>
        <source>Cancelled from the console (closing the stream of a sync execution makes the agent kill it).</source>
        <translation>Cancelada desde la consola (cerrar el flujo de una ejecución síncrona hace que el agente la termine).</translation>
    </message>
    <message>
        <source>The agent refused the execution (HTTP %1): %2</source>
        <translation>El agente rechazó la ejecución (HTTP %1): %2</translation>
    </message>
    <message>
        <source>The connection to the agent broke before the execution ended (%1); a sync execution is killed when its client disconnects.</source>
        <translation>La conexión con el agente se cortó antes de que terminara la ejecución (%1); una ejecución síncrona se termina cuando su cliente se desconecta.</translation>
    </message>
    <message>
        <source>stream closed</source>
        <translation>flujo cerrado</translation>
    </message>
    <message>
        <source>The agent cannot stream this log (HTTP %1): %2</source>
        <translation>El agente no puede transmitir este registro (HTTP %1): %2</translation>
    </message>
    <message>
        <source>The agent does not know this execution: %1</source>
        <translation>El agente no conoce esta ejecución: %1</translation>
    </message>
    <message>
        <source>the stream ended early</source>
        <translation>el flujo terminó antes de tiempo</translation>
    </message>
    <message numerus="yes">
        <source>Log stream interrupted (%1); resuming at byte %2 in %n s.</source>
        <translation>
            <numerusform>Flujo del registro interrumpido (%1); se reanuda en el byte %2 dentro de %n s.</numerusform>
            <numerusform>Flujo del registro interrumpido (%1); se reanuda en el byte %2 dentro de %n s.</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancel refused (HTTP %1): %2</source>
        <translation>Cancelación rechazada (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Cancel requested; waiting for the execution to end.</source>
        <translation>Cancelación solicitada; esperando a que termine la ejecución.</translation>
    </message>
    <message>
        <source>The agent reported an error in the stream: %1</source>
        <translation>El agente informó de un error en el flujo: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionInfo</name>
    <message>
        <source>Queued</source>
        <translation>En cola</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>En ejecución</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>Completada</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fallida</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>Tiempo agotado</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Cancelada</translation>
    </message>
    <message>
        <source>Output limited</source>
        <translation>Salida limitada</translation>
    </message>
    <message>
        <source>Quota exceeded</source>
        <translation>Cuota superada</translation>
    </message>
    <message>
        <source>Setup failed</source>
        <translation>Preparación fallida</translation>
    </message>
    <message>
        <source>Lost</source>
        <translation>Perdida</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Desconocido</translation>
    </message>
    <message>
        <source>Memory exceeded</source>
        <translation>Memoria superada</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionLauncher</name>
    <message>
        <source>Not connected to an agent.</source>
        <translation>No hay conexión con ningún agente.</translation>
    </message>
    <message>
        <source>Creating a workspace…</source>
        <translation>Creando un espacio de trabajo…</translation>
    </message>
    <message>
        <source>Could not create a workspace: %1</source>
        <translation>No se pudo crear un espacio de trabajo: %1</translation>
    </message>
    <message>
        <source>The connection to the agent was closed.</source>
        <translation>Se cerró la conexión con el agente.</translation>
    </message>
    <message>
        <source>Starting the execution…</source>
        <translation>Iniciando la ejecución…</translation>
    </message>
    <message>
        <source>The agent refused the execution (HTTP %1): %2</source>
        <translation>El agente rechazó la ejecución (HTTP %1): %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionTableModel</name>
    <message>
        <source>%1 (#%2)</source>
        <translation>%1 (n.º %2)</translation>
    </message>
    <message>
        <source>Execution</source>
        <translation>Ejecución</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Espacio de trabajo</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Tipo</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Inicio</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Duración</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>Código de salida</translation>
    </message>
    <message>
        <source>Chips</source>
        <translation>Chips</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionWindow</name>
    <message>
        <source>Execution</source>
        <translation>Ejecución</translation>
    </message>
    <message>
        <source>Follow</source>
        <translation>Seguir</translation>
    </message>
    <message>
        <source>Keep the end of the log in view</source>
        <translation>Mantener visible el final del registro</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausa</translation>
    </message>
    <message>
        <source>Hold new output aside (bounded) until resumed</source>
        <translation>Retener la salida nueva (con límite) hasta reanudar</translation>
    </message>
    <message>
        <source>Find…</source>
        <translation>Buscar…</translation>
    </message>
    <message>
        <source>Find in the log (Ctrl+F)</source>
        <translation>Buscar en el registro (Ctrl+F)</translation>
    </message>
    <message>
        <source>Save log…</source>
        <translation>Guardar registro…</translation>
    </message>
    <message>
        <source>Cancel run</source>
        <translation>Cancelar ejecución</translation>
    </message>
    <message>
        <source>Cancel this execution (Ctrl+.)</source>
        <translation>Cancelar esta ejecución (Ctrl+.)</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>Campo</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Valor</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Hora</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Puerto</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>Decisión</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Motivo</translation>
    </message>
    <message>
        <source>Bytes up</source>
        <translation>Bytes enviados</translation>
    </message>
    <message>
        <source>Bytes down</source>
        <translation>Bytes recibidos</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>Salida</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Detalles</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>Salida de red</translation>
    </message>
    <message>
        <source>[… %1 bytes dropped by the agent&apos;s output retention …]</source>
        <translation>[… la retención de salida del agente descartó %1 bytes …]</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>workspace %1</source>
        <translation>espacio %1</translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation>código de salida %1</translation>
    </message>
    <message>
        <source>signal %1</source>
        <translation>señal %1</translation>
    </message>
    <message>
        <source>chips %1</source>
        <translation>chips %1</translation>
    </message>
    <message>
        <source>sync stream</source>
        <translation>flujo síncrono</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>Resumen</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Espacio de trabajo</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Tipo</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>Código de salida</translation>
    </message>
    <message>
        <source>Signal</source>
        <translation>Señal</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Creados</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Inicio</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Fin</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Duración</translation>
    </message>
    <message>
        <source>Permission epoch</source>
        <translation>Época de permisos</translation>
    </message>
    <message>
        <source>(not reported)</source>
        <translation>(no informado)</translation>
    </message>
    <message>
        <source>How it ran</source>
        <translation>Cómo se ejecutó</translation>
    </message>
    <message>
        <source>Working directory</source>
        <translation>Directorio de trabajo</translation>
    </message>
    <message>
        <source>/workspace</source>
        <translation>/workspace</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Orden</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>Entorno</translation>
    </message>
    <message>
        <source>Changed files</source>
        <translation>Archivos cambiados</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>Modificados</translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation>Eliminados</translation>
    </message>
    <message>
        <source>allowed</source>
        <translation>permitida</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>denegada</translation>
    </message>
    <message>
        <source>This agent does not record egress decisions yet.</source>
        <translation>Este agente aún no registra las decisiones de salida.</translation>
    </message>
    <message>
        <source>No connection was attempted.</source>
        <translation>No se intentó ninguna conexión.</translation>
    </message>
    <message>
        <source>— %1</source>
        <translation>— %1</translation>
    </message>
    <message>
        <source>, exit code %1</source>
        <translation>, código de salida %1</translation>
    </message>
    <message>
        <source>, after %1</source>
        <translation>, tras %1</translation>
    </message>
    <message>
        <source>: %1</source>
        <translation>: %1</translation>
    </message>
    <message>
        <source>Save log</source>
        <translation>Guardar registro</translation>
    </message>
    <message>
        <source>Log files (*.log *.txt);;All files (*)</source>
        <translation>Archivos de registro (*.log *.txt);;Todos los archivos (*)</translation>
    </message>
    <message>
        <source>Could not save: %1</source>
        <translation>No se pudo guardar: %1</translation>
    </message>
    <message>
        <source>Saving the log…</source>
        <translation>Guardando el registro…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
    <message>
        <source>Saving the log… %1</source>
        <translation>Guardando el registro… %1</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Cerrar</translation>
    </message>
    <message>
        <source>This execution runs on a sync stream: closing the window closes the stream and the agent kills the execution. Close anyway?</source>
        <translation>Esta ejecución usa un flujo síncrono: al cerrar la ventana se cierra el flujo y el agente termina la ejecución. ¿Cerrar de todos modos?</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>Memoria máxima</translation>
    </message>
    <message>
        <source>CPU (user)</source>
        <translation>CPU (usuario)</translation>
    </message>
    <message>
        <source>CPU (system)</source>
        <translation>CPU (sistema)</translation>
    </message>
    <message>
        <source>Most processes</source>
        <translation>Máximo de procesos</translation>
    </message>
    <message>
        <source>Usage</source>
        <translation>Uso</translation>
    </message>
    <message>
        <source>(not measured)</source>
        <translation>(no medido)</translation>
    </message>
    <message>
        <source>environment %1</source>
        <translation>entorno %1</translation>
    </message>
    <message>
        <source>Science environment</source>
        <translation>Entorno científico</translation>
    </message>
    <message>
        <source>Environment revision</source>
        <translation>Revisión del entorno</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionsPage</name>
    <message>
        <source>Executions</source>
        <translation>Ejecuciones</translation>
    </message>
    <message>
        <source>All states</source>
        <translation>Todos los estados</translation>
    </message>
    <message>
        <source>All workspaces</source>
        <translation>Todos los espacios</translation>
    </message>
    <message>
        <source>Filter by id, workspace or kind (Ctrl+F)</source>
        <translation>Filtrar por id, espacio o tipo (Ctrl+F)</translation>
    </message>
    <message>
        <source>&amp;Live</source>
        <translation>En &amp;vivo</translation>
    </message>
    <message>
        <source>Refresh the newest executions every few seconds</source>
        <translation>Actualizar las ejecuciones más recientes cada pocos segundos</translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation>&amp;Ejecutar…</translation>
    </message>
    <message>
        <source>State:</source>
        <translation>Estado:</translation>
    </message>
    <message>
        <source>Workspace:</source>
        <translation>Espacio:</translation>
    </message>
    <message>
        <source>managed executions</source>
        <translation>ejecuciones gestionadas</translation>
    </message>
    <message>
        <source>Could not load executions: %1</source>
        <translation>No se pudieron cargar las ejecuciones: %1</translation>
    </message>
    <message>
        <source>not connected</source>
        <translation>sin conexión</translation>
    </message>
    <message numerus="yes">
        <source>%n execution(s) loaded</source>
        <translation>
            <numerusform>%n ejecución cargada</numerusform>
            <numerusform>%n ejecuciones cargadas</numerusform>
        </translation>
    </message>
    <message>
        <source> · loading…</source>
        <translation> · cargando…</translation>
    </message>
    <message>
        <source> · scroll down for older ones</source>
        <translation> · desplázate hacia abajo para ver las anteriores</translation>
    </message>
</context>
<context>
    <name>runbox::console::FileEntry</name>
    <message>
        <source>File</source>
        <translation>Archivo</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Carpeta</translation>
    </message>
    <message>
        <source>Link</source>
        <translation>Enlace</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>Otro</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Desconocido</translation>
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
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 bytes</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nombre</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Tamaño</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>Modificado</translation>
    </message>
    <message>
        <source>Permissions</source>
        <translation>Permisos</translation>
    </message>
</context>
<context>
    <name>runbox::console::FilePreview</name>
    <message>
        <source>Select a text file of at most %1 to preview it.</source>
        <translation>Seleccione un archivo de texto de hasta %1 para previsualizarlo.</translation>
    </message>
    <message>
        <source>%1 is a link to %2: the console never follows links.</source>
        <translation>%1 es un enlace a %2: la consola nunca sigue los enlaces.</translation>
    </message>
    <message>
        <source>%1 is not a regular file.</source>
        <translation>%1 no es un archivo normal.</translation>
    </message>
    <message>
        <source>%1 is larger than %2: download it to read it.</source>
        <translation>%1 ocupa más de %2: descárguelo para leerlo.</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Not connected.</source>
        <translation>Sin conexión.</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>Leyendo %1…</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>No se pudo leer %1: %2</translation>
    </message>
    <message>
        <source>%1 is not text.</source>
        <translation>%1 no es texto.</translation>
    </message>
    <message>
        <source>%1 is not UTF-8 text.</source>
        <translation>%1 no es texto UTF-8.</translation>
    </message>
</context>
<context>
    <name>runbox::console::FileTransfer</name>
    <message>
        <source>not connected</source>
        <translation>sin conexión</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>no se puede leer %1: %2</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>no se puede escribir %1: %2</translation>
    </message>
    <message>
        <source>the connection was closed</source>
        <translation>la conexión se cerró</translation>
    </message>
    <message>
        <source>%1 is a folder: only files are downloaded</source>
        <translation>%1 es una carpeta: solo se descargan archivos</translation>
    </message>
    <message>
        <source>the download ended after %1 of %2 bytes</source>
        <translation>la descarga terminó tras %1 de %2 bytes</translation>
    </message>
</context>
<context>
    <name>runbox::console::FilesPage</name>
    <message>
        <source>Files</source>
        <translation>Archivos</translation>
    </message>
    <message>
        <source>The workspace whose files are shown</source>
        <translation>El espacio de trabajo cuyos archivos se muestran</translation>
    </message>
    <message>
        <source>&amp;Up</source>
        <translation>S&amp;ubir</translation>
    </message>
    <message>
        <source>New &amp;folder…</source>
        <translation>Nueva &amp;carpeta…</translation>
    </message>
    <message>
        <source>&amp;Upload…</source>
        <translation>Su&amp;bir archivo…</translation>
    </message>
    <message>
        <source>Do&amp;wnload…</source>
        <translation>&amp;Descargar…</translation>
    </message>
    <message>
        <source>Re&amp;name / move…</source>
        <translation>Re&amp;nombrar / mover…</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>&amp;Eliminar…</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>Actuali&amp;zar</translation>
    </message>
    <message>
        <source>Show the parent folder</source>
        <translation>Mostrar la carpeta superior</translation>
    </message>
    <message>
        <source>Upload a file into this folder</source>
        <translation>Subir un archivo a esta carpeta</translation>
    </message>
    <message>
        <source>Save the selected file on this computer</source>
        <translation>Guardar el archivo seleccionado en este equipo</translation>
    </message>
    <message>
        <source>Delete the selected files and folders</source>
        <translation>Eliminar los archivos y carpetas seleccionados</translation>
    </message>
    <message>
        <source>Workspace:</source>
        <translation>Espacio:</translation>
    </message>
    <message>
        <source>workspaces</source>
        <translation>espacios de trabajo</translation>
    </message>
    <message>
        <source>Could not read the workspaces: %1</source>
        <translation>No se pudieron leer los espacios de trabajo: %1</translation>
    </message>
    <message>
        <source>%1:/%2</source>
        <translation>%1:/%2</translation>
    </message>
    <message>
        <source>Could not list %1: %2</source>
        <translation>No se pudo listar %1: %2</translation>
    </message>
    <message>
        <source>Could not make folder %1: %2</source>
        <translation>No se pudo crear la carpeta %1: %2</translation>
    </message>
    <message>
        <source>Folder %1 made.</source>
        <translation>Carpeta %1 creada.</translation>
    </message>
    <message>
        <source>Could not move %1 to %2: %3</source>
        <translation>No se pudo mover %1 a %2: %3</translation>
    </message>
    <message>
        <source>%1 moved to %2.</source>
        <translation>%1 movido a %2.</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) not deleted:</source>
        <translation>
            <numerusform>%n elemento no eliminado:</numerusform>
            <numerusform>%n elementos no eliminados:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) deleted.</source>
        <translation>
            <numerusform>%n elemento eliminado.</numerusform>
            <numerusform>%n elementos eliminados.</numerusform>
        </translation>
    </message>
    <message>
        <source>New folder</source>
        <translation>Nueva carpeta</translation>
    </message>
    <message>
        <source>Name of the new folder in %1:</source>
        <translation>Nombre de la nueva carpeta en %1:</translation>
    </message>
    <message>
        <source>Rename or move</source>
        <translation>Renombrar o mover</translation>
    </message>
    <message>
        <source>New path of %1 in the workspace:</source>
        <translation>Nueva ruta de %1 en el espacio de trabajo:</translation>
    </message>
    <message>
        <source>Delete files</source>
        <translation>Eliminar archivos</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n item(s)? Folders are deleted with everything in them. This cannot be undone.</source>
        <translation>
            <numerusform>¿Eliminar %n elemento? Las carpetas se eliminan con todo su contenido. No se puede deshacer.</numerusform>
            <numerusform>¿Eliminar %n elementos? Las carpetas se eliminan con todo su contenido. No se puede deshacer.</numerusform>
        </translation>
    </message>
    <message>
        <source>Upload a file</source>
        <translation>Subir un archivo</translation>
    </message>
    <message>
        <source>Save %1 as</source>
        <translation>Guardar %1 como</translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetHost</name>
    <message>
        <source>The connection was closed.</source>
        <translation>La conexión se cerró.</translation>
    </message>
    <message>
        <source>Reading the chips…</source>
        <translation>Leyendo los chips…</translation>
    </message>
    <message>
        <source>Disconnected</source>
        <translation>Desconectado</translation>
    </message>
    <message>
        <source>Unreachable (%1): no chips can be chosen.</source>
        <translation>Inaccesible (%1): no se puede elegir ningún chip.</translation>
    </message>
    <message>
        <source>Unreachable (%1): %2</source>
        <translation>Inaccesible (%1): %2</translation>
    </message>
    <message>
        <source>This agent does not offer GET /v1/npu/chips yet.</source>
        <translation>Este agente aún no ofrece GET /v1/npu/chips.</translation>
    </message>
    <message>
        <source>Could not read the chips: %1</source>
        <translation>No se pudieron leer los chips: %1</translation>
    </message>
    <message>
        <source>No NPU on this host.</source>
        <translation>No hay NPU en este host.</translation>
    </message>
    <message>
        <source>No NPU on this host: %1</source>
        <translation>No hay NPU en este host: %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n chip(s) usable</source>
        <translation>
            <numerusform>%1 de %n chip utilizable</numerusform>
            <numerusform>%1 de %n chips utilizables</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n in use</source>
        <translation>
            <numerusform>%1 · %n en uso</numerusform>
            <numerusform>%1 · %n en uso</numerusform>
        </translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Conectando…</translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetHostSection</name>
    <message numerus="yes">
        <source>Run on this host with %n chip(s)…</source>
        <translation>
            <numerusform>Ejecutar en este host con %n chip…</numerusform>
            <numerusform>Ejecutar en este host con %n chips…</numerusform>
        </translation>
    </message>
    <message>
        <source>Run on this host with selected chips…</source>
        <translation>Ejecutar en este host con los chips seleccionados…</translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetPage</name>
    <message>
        <source>No agent is connected. Connect agents in the list on the left; their chips appear here, grouped by host.</source>
        <translation>No hay ningún agente conectado. Conecte agentes en la lista de la izquierda; sus chips aparecerán aquí, agrupados por host.</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>Actuali&amp;zar</translation>
    </message>
    <message numerus="yes">
        <source>Read every host&apos;s chips again (they are also read every %n second(s))</source>
        <translation>
            <numerusform>Volver a leer los chips de cada host (también se leen cada %n segundo)</numerusform>
            <numerusform>Volver a leer los chips de cada host (también se leen cada %n segundos)</numerusform>
        </translation>
    </message>
    <message>
        <source>Fleet</source>
        <translation>Flota</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n host(s) reachable</source>
        <translation>
            <numerusform>%1 de %n host accesible</numerusform>
            <numerusform>%1 de %n hosts accesibles</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n chip(s) usable</source>
        <translation>
            <numerusform>%1 de %n chip utilizable</numerusform>
            <numerusform>%1 de %n chips utilizables</numerusform>
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
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 d %2 h</translation>
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
        <translation>Aún no se sabe</translation>
    </message>
    <message>
        <source>Unusable: executions are refused</source>
        <translation>Inutilizable: se rechazan las ejecuciones</translation>
    </message>
    <message>
        <source>Sound</source>
        <translation>Sólido</translation>
    </message>
    <message numerus="yes">
        <source>Sound, with %n warning(s)</source>
        <translation>
            <numerusform>Sólido, con %n advertencia</numerusform>
            <numerusform>Sólido, con %n advertencias</numerusform>
        </translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>Sandbox</translation>
    </message>
    <message>
        <source>Unusable</source>
        <translation>Inutilizable</translation>
    </message>
    <message>
        <source>No sandbox can be built, so the agent runs nothing (it never falls back to running code unsandboxed). %1</source>
        <translation>No se puede crear ningún sandbox, así que el agente no ejecuta nada (nunca recurre a ejecutar código sin sandbox). %1</translation>
    </message>
    <message>
        <source>bubblewrap</source>
        <translation>bubblewrap</translation>
    </message>
    <message>
        <source>version unknown</source>
        <translation>versión desconocida</translation>
    </message>
    <message>
        <source>Every execution is a fresh bubblewrap sandbox (%1).</source>
        <translation>Cada ejecución es un sandbox de bubblewrap nuevo (%1).</translation>
    </message>
    <message>
        <source>/proc</source>
        <translation>/proc</translation>
    </message>
    <message>
        <source>bound from the host</source>
        <translation>enlazado desde el host</translation>
    </message>
    <message>
        <source>The kernel refused a fresh /proc, so the host&apos;s /proc is bound read-only: code in a sandbox can see the host&apos;s process list and command lines. Cause: %1</source>
        <translation>El kernel rechazó un /proc nuevo, así que se enlaza el /proc del host en solo lectura: el código del sandbox puede ver la lista de procesos del host y sus líneas de órdenes. Causa: %1</translation>
    </message>
    <message>
        <source>own PID namespace</source>
        <translation>espacio de PID propio</translation>
    </message>
    <message>
        <source>Each sandbox sees only its own processes.</source>
        <translation>Cada sandbox solo ve sus propios procesos.</translation>
    </message>
    <message>
        <source>Nested user namespaces</source>
        <translation>Espacios de usuario anidados</translation>
    </message>
    <message>
        <source>blocked</source>
        <translation>bloqueados</translation>
    </message>
    <message>
        <source>bubblewrap&apos;s --disable-userns stops sandboxed code from creating user namespaces of its own.</source>
        <translation>La opción --disable-userns de bubblewrap impide que el código del sandbox cree sus propios espacios de usuario.</translation>
    </message>
    <message>
        <source>not blocked by bubblewrap</source>
        <translation>no bloqueados por bubblewrap</translation>
    </message>
    <message>
        <source>This bubblewrap is older than 0.8 and has no --disable-userns; only the seccomp filter stops sandboxed code from creating namespaces. Upgrade bubblewrap to restore the second layer.</source>
        <translation>Este bubblewrap es anterior a la 0.8 y no tiene --disable-userns; solo el filtro seccomp impide que el código del sandbox cree espacios de nombres. Actualiza bubblewrap para recuperar la segunda capa.</translation>
    </message>
    <message>
        <source>The kernel refused --disable-userns (for example a read-only /proc/sys inside a container); only the seccomp filter stops sandboxed code from creating namespaces.</source>
        <translation>El kernel rechazó --disable-userns (por ejemplo, /proc/sys de solo lectura dentro de un contenedor); solo el filtro seccomp impide que el código del sandbox cree espacios de nombres.</translation>
    </message>
    <message>
        <source>seccomp</source>
        <translation>seccomp</translation>
    </message>
    <message>
        <source>filter unavailable</source>
        <translation>filtro no disponible</translation>
    </message>
    <message>
        <source>A syscall filter for %1 is loaded into every sandbox; denied calls fail with %2.</source>
        <translation>Cada sandbox carga un filtro de llamadas al sistema para %1; las llamadas denegadas fallan con %2.</translation>
    </message>
    <message>
        <source>architecture not reported</source>
        <translation>arquitectura no informada</translation>
    </message>
    <message>
        <source>The agent did not say which syscall filter it loads.</source>
        <translation>El agente no indicó qué filtro de llamadas al sistema carga.</translation>
    </message>
    <message>
        <source>Landlock</source>
        <translation>Landlock</translation>
    </message>
    <message>
        <source>not reported by this agent</source>
        <translation>este agente no lo informa</translation>
    </message>
    <message>
        <source>Landlock confines light workspaces; this agent does not report its ABI.</source>
        <translation>Landlock confina los espacios de trabajo ligeros; este agente no informa su ABI.</translation>
    </message>
    <message>
        <source>unavailable</source>
        <translation>no disponible</translation>
    </message>
    <message>
        <source>The kernel has no Landlock: light workspaces cannot be confined and are refused.</source>
        <translation>El kernel no tiene Landlock: los espacios de trabajo ligeros no se pueden confinar y se rechazan.</translation>
    </message>
    <message>
        <source>ABI %1</source>
        <translation>ABI %1</translation>
    </message>
    <message>
        <source>Light workspaces are confined to their home by a Landlock ruleset.</source>
        <translation>Un conjunto de reglas Landlock confina cada espacio de trabajo ligero a su directorio personal.</translation>
    </message>
    <message>
        <source>Agent warning</source>
        <translation>Aviso del agente</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>Salida de red</translation>
    </message>
    <message>
        <source>This agent does not offer egress through the gateway yet: sandboxes have no network at all.</source>
        <translation>Este agente aún no ofrece salida de red a través de la pasarela: los sandboxes no tienen red.</translation>
    </message>
    <message>
        <source>available</source>
        <translation>disponible</translation>
    </message>
    <message>
        <source>Sandboxes reach allowed domains through the gateway when the network policy allows them.</source>
        <translation>Los sandboxes llegan a los dominios permitidos a través de la pasarela cuando la política de red lo permite.</translation>
    </message>
    <message>
        <source>The agent gave no reason.</source>
        <translation>El agente no dio ningún motivo.</translation>
    </message>
    <message>
        <source>Light workspaces</source>
        <translation>Espacios de trabajo ligeros</translation>
    </message>
    <message>
        <source>Memory bounds</source>
        <translation>Límites de memoria</translation>
    </message>
    <message>
        <source>cgroup v2</source>
        <translation>cgroup v2</translation>
    </message>
    <message>
        <source>Each execution has its own cgroup; the kernel enforces its memory and process limits. %1</source>
        <translation>Cada ejecución tiene su propio cgroup; el núcleo aplica sus límites de memoria y de procesos. %1</translation>
    </message>
    <message>
        <source>watchdog</source>
        <translation>vigilante</translation>
    </message>
    <message>
        <source>No delegated cgroup: the agent samples each execution&apos;s memory and ends it as memory_exceeded past its limit; %1. %2</source>
        <translation>Sin cgroup delegado: el agente mide la memoria de cada ejecución y la termina como memory_exceeded al pasar su límite; %1. %2</translation>
    </message>
    <message>
        <source>none</source>
        <translation>ninguno</translation>
    </message>
    <message>
        <source>Executions with a memory limit are refused (503 limit_unenforceable). %1</source>
        <translation>Se rechazan las ejecuciones con límite de memoria (503 limit_unenforceable). %1</translation>
    </message>
    <message>
        <source>CPU limit</source>
        <translation>Límite de CPU</translation>
    </message>
    <message>
        <source>cgroup v2 cpu.max</source>
        <translation>cgroup v2 cpu.max</translation>
    </message>
    <message>
        <source>not enforceable here</source>
        <translation>no aplicable aquí</translation>
    </message>
    <message>
        <source>Leave &quot;CPU per execution&quot; unlimited on this host: executions under a limit are refused. %1</source>
        <translation>Deja «CPU por ejecución» ilimitado en este host: se rechazan las ejecuciones con límite. %1</translation>
    </message>
    <message>
        <source>Pool %1: %2 workspaces, capacity %3, %4 free</source>
        <translation>Pool %1: %2 espacios de trabajo, capacidad %3, %4 libres</translation>
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
        <translation>Ningún agente seleccionado</translation>
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
        <translation>Idioma del sistema</translation>
    </message>
</context>
<context>
    <name>runbox::console::LogDownloader</name>
    <message>
        <source>Not connected.</source>
        <translation>Sin conexión.</translation>
    </message>
    <message>
        <source>
[… %1 bytes dropped by retention …]
</source>
        <translation>
[… la retención descartó %1 bytes …]
</translation>
    </message>
    <message>
        <source>The agent did not send the log (HTTP %1): %2</source>
        <translation>El agente no envió el registro (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Cancelado.</translation>
    </message>
</context>
<context>
    <name>runbox::console::LogView</name>
    <message>
        <source>Match case</source>
        <translation>Distinguir mayúsculas</translation>
    </message>
    <message>
        <source>No output yet.</source>
        <translation>Todavía no hay salida.</translation>
    </message>
    <message>
        <source>Find:</source>
        <translation>Buscar:</translation>
    </message>
    <message>
        <source>Text in the log</source>
        <translation>Texto del registro</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>Coincidencia anterior (Mayús+Intro)</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>Coincidencia siguiente (Intro)</translation>
    </message>
    <message>
        <source>Close the find bar (Esc)</source>
        <translation>Cerrar la barra de búsqueda (Esc)</translation>
    </message>
    <message>
        <source>Only the latest %1 characters are shown; %2 earlier characters were dropped from the view. Save the log to get all of it.</source>
        <translation>Solo se muestran los últimos %1 caracteres; se quitaron de la vista %2 caracteres anteriores. Guarda el registro para obtenerlo completo.</translation>
    </message>
    <message>
        <source>Not found</source>
        <translation>No encontrado</translation>
    </message>
</context>
<context>
    <name>runbox::console::MainWindow</name>
    <message>
        <source>Runbox Console</source>
        <translation>Consola de Runbox</translation>
    </message>
    <message>
        <source>Agents</source>
        <translation>Agentes</translation>
    </message>
    <message>
        <source>Double-click an agent to connect. Several can be connected at once; the pages show the selected one.</source>
        <translation>Haz doble clic en un agente para conectarte. Puedes conectar varios a la vez; las páginas muestran el seleccionado.</translation>
    </message>
    <message>
        <source>&amp;Add agent…</source>
        <translation>&amp;Añadir agente…</translation>
    </message>
    <message>
        <source>&amp;Edit agent…</source>
        <translation>&amp;Editar agente…</translation>
    </message>
    <message>
        <source>&amp;Remove agent</source>
        <translation>&amp;Quitar agente</translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation>&amp;Conectar</translation>
    </message>
    <message>
        <source>&amp;Disconnect</source>
        <translation>&amp;Desconectar</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Salir</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>Actuali&amp;zar</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>&amp;Buscar…</translation>
    </message>
    <message>
        <source>&amp;New run…</source>
        <translation>&amp;Nueva ejecución…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Preferencias…</translation>
    </message>
    <message>
        <source>&amp;About Runbox Console</source>
        <translation>&amp;Acerca de la consola de Runbox</translation>
    </message>
    <message>
        <source>&amp;Agent</source>
        <translation>&amp;Agente</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ver</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Ejecutar</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>&amp;Preferencias</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>Ay&amp;uda</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Principal</translation>
    </message>
    <message>
        <source>Connect to an agent first.</source>
        <translation>Primero conéctate a un agente.</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Ejecutar</translation>
    </message>
    <message>
        <source>Execution started.</source>
        <translation>Ejecución iniciada.</translation>
    </message>
    <message>
        <source>Execution started on a sync stream (this agent has no managed executions yet): keep its window open while it runs.</source>
        <translation>Ejecución iniciada en un flujo síncrono (este agente aún no tiene ejecuciones gestionadas): mantén su ventana abierta mientras se ejecuta.</translation>
    </message>
    <message>
        <source>The new language applies when the console restarts.</source>
        <translation>El nuevo idioma se aplicará al reiniciar la consola.</translation>
    </message>
    <message>
        <source>About Runbox Console</source>
        <translation>Acerca de la consola de Runbox</translation>
    </message>
    <message>
        <source>Tokens: system keychain</source>
        <translation>Tokens: llavero del sistema</translation>
    </message>
    <message>
        <source>Tokens: this session only</source>
        <translation>Tokens: solo esta sesión</translation>
    </message>
    <message>
        <source>Run on %1</source>
        <translation>Ejecutar en %1</translation>
    </message>
    <message>
        <source>The agent went away before the run started.</source>
        <translation>El agente desapareció antes de que empezara la ejecución.</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Runbox Console %1&lt;/h3&gt;&lt;p&gt;The operators&apos; desktop console for Runbox agents: sandbox health, quotas, network policy, Ascend NPUs, executions and science environments.&lt;/p&gt;&lt;p&gt;Shortcuts: F5 refresh · Ctrl+F find · Ctrl+R new run · Ctrl+. cancel a run · Ctrl+1…9 pages.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Consola de Runbox %1&lt;/h3&gt;&lt;p&gt;La consola de escritorio de los operadores para agentes de Runbox: estado del sandbox, cuotas, política de red, NPU Ascend, ejecuciones y entornos científicos.&lt;/p&gt;&lt;p&gt;Atajos: F5 actualizar · Ctrl+F buscar · Ctrl+R nueva ejecución · Ctrl+. cancelar una ejecución · Ctrl+1…9 páginas.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>runbox::console::NetworkPolicyPage</name>
    <message>
        <source>Network policy</source>
        <translation>Política de red</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modo</translation>
    </message>
    <message>
        <source>&amp;None — sandboxes have no network at all</source>
        <translation>&amp;Ninguna — los sandboxes no tienen red</translation>
    </message>
    <message>
        <source>&amp;Domain allowlist — only the names below, through the egress gateway</source>
        <translation>Lista de &amp;dominios permitidos — solo los nombres de abajo, a través de la pasarela de salida</translation>
    </message>
    <message>
        <source>Allowed domains</source>
        <translation>Dominios permitidos</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>Añadir</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Editar</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Quitar</translation>
    </message>
    <message>
        <source>Paste lines…</source>
        <translation>Pegar líneas…</translation>
    </message>
    <message>
        <source>host, *.host (subdomains at any depth), host:port, *.host:port. IP addresses are never allowed.</source>
        <translation>host, *.host (subdominios a cualquier profundidad), host:puerto, *.host:puerto. Nunca se permiten direcciones IP.</translation>
    </message>
    <message>
        <source>Private networks allowed (CIDR)</source>
        <translation>Redes privadas permitidas (CIDR)</translation>
    </message>
    <message>
        <source>Empty by default. The explicit door to an internal mirror: the gateway refuses private, loopback and link-local addresses unless they are inside one of these.</source>
        <translation>Vacío por defecto. La puerta explícita a un espejo interno: la pasarela rechaza direcciones privadas, de bucle local y de enlace local salvo que estén dentro de una de estas.</translation>
    </message>
    <message>
        <source>Would this host be allowed?</source>
        <translation>¿Se permitiría este host?</translation>
    </message>
    <message>
        <source>e.g. files.pythonhosted.org:443</source>
        <translation>p. ej. files.pythonhosted.org:443</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>&amp;Aplicar</translation>
    </message>
    <message>
        <source>&amp;Revert</source>
        <translation>&amp;Revertir</translation>
    </message>
    <message>
        <source>network policies</source>
        <translation>políticas de red</translation>
    </message>
    <message>
        <source>Could not read the network policy</source>
        <translation>No se pudo leer la política de red</translation>
    </message>
    <message>
        <source>Current revision: %1</source>
        <translation>Revisión actual: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies).</source>
        <translation>
            <numerusform>%n entrada.</numerusform>
            <numerusform>%n entradas.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies), %1 refused — hover a marked entry to see why.</source>
        <translation>
            <numerusform>%n entrada, %1 rechazadas: pasa el ratón por una entrada marcada para ver por qué.</numerusform>
            <numerusform>%n entradas, %1 rechazadas: pasa el ratón por una entrada marcada para ver por qué.</numerusform>
        </translation>
    </message>
    <message>
        <source>Type a host name to check it against the policy as edited.</source>
        <translation>Escribe un nombre de host para comprobarlo con la política tal como está editada.</translation>
    </message>
    <message>
        <source>Refused: mode None allows no network at all.</source>
        <translation>Rechazado: el modo Ninguna no permite ninguna red.</translation>
    </message>
    <message>
        <source>Allowed on port %1 only, by %2.</source>
        <translation>Permitido solo en el puerto %1, por %2.</translation>
    </message>
    <message>
        <source>Allowed by %1 (if it resolves to a public address or to one inside the private networks).</source>
        <translation>Permitido por %1 (si se resuelve a una dirección pública o a una dentro de las redes privadas).</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>Rechazado: %1</translation>
    </message>
    <message>
        <source>Refused: no domain is allowed.</source>
        <translation>Rechazado: no se permite ningún dominio.</translation>
    </message>
    <message>
        <source>Refused: no entry matches %1.</source>
        <translation>Rechazado: ninguna entrada coincide con %1.</translation>
    </message>
    <message>
        <source>Paste domains</source>
        <translation>Pegar dominios</translation>
    </message>
    <message>
        <source>One entry per line (commas and spaces also separate entries; lines starting with # are ignored).</source>
        <translation>Una entrada por línea (las comas y los espacios también separan entradas; se ignoran las líneas que empiezan por #).</translation>
    </message>
    <message>
        <source>Add entries</source>
        <translation>Añadir entradas</translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies) added.</source>
        <translation>
            <numerusform>%n entrada añadida.</numerusform>
            <numerusform>%n entradas añadidas.</numerusform>
        </translation>
    </message>
    <message>
        <source>Fix or remove the marked entries first.</source>
        <translation>Primero corrige o quita las entradas marcadas.</translation>
    </message>
    <message>
        <source>A domain allowlist needs at least one entry.</source>
        <translation>Una lista de dominios permitidos necesita al menos una entrada.</translation>
    </message>
    <message>
        <source>The agent refused the policy (HTTP %1): %2</source>
        <translation>El agente rechazó la política (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Network policy applied: %1</source>
        <translation>Política de red aplicada: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::NewEnvironmentDialog</name>
    <message>
        <source>New environment</source>
        <translation>Nuevo entorno</translation>
    </message>
    <message>
        <source>e.g. analysis-2026</source>
        <translation>p. ej. analysis-2026</translation>
    </message>
    <message>
        <source>Not available on this agent: %1</source>
        <translation>No disponible en este agente: %1</translation>
    </message>
    <message>
        <source>The first revision is a bare environment; install packages into it afterwards. Its build log opens in a window of its own.</source>
        <translation>La primera revisión es un entorno vacío; instale paquetes en él después. Su registro de construcción se abre en una ventana propia.</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Nombre:</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Lenguaje:</translation>
    </message>
    <message>
        <source>&amp;Create</source>
        <translation>&amp;Crear</translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuChip</name>
    <message>
        <source>%1 is not supported: only the Ascend 910 series can be selected.</source>
        <translation>%1 no es compatible: solo se puede elegir la serie Ascend 910.</translation>
    </message>
    <message>
        <source>This chip</source>
        <translation>Este chip</translation>
    </message>
    <message>
        <source>The probe sandbox could not use this chip.</source>
        <translation>El sandbox de prueba no pudo usar este chip.</translation>
    </message>
    <message>
        <source>execution %1</source>
        <translation>ejecución %1</translation>
    </message>
    <message>
        <source>broker job %1</source>
        <translation>trabajo del bróker %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuChipModel</name>
    <message>
        <source>Chip %1</source>
        <translation>Chip %1</translation>
    </message>
    <message>
        <source>Chip %1 (NPU %2, die %3): %4</source>
        <translation>Chip %1 (NPU %2, dado %3): %4</translation>
    </message>
    <message>
        <source>unknown model</source>
        <translation>modelo desconocido</translation>
    </message>
    <message>
        <source>Probe: usable</source>
        <translation>Prueba: utilizable</translation>
    </message>
    <message>
        <source>In use now by a run or job on this agent.</source>
        <translation>En uso ahora por una ejecución o un trabajo de este agente.</translation>
    </message>
    <message>
        <source>In use now by %1.</source>
        <translation>En uso ahora por %1.</translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuPage</name>
    <message>
        <source>NPU chips</source>
        <translation>Chips NPU</translation>
    </message>
    <message>
        <source>Re-&amp;probe</source>
        <translation>Volver a &amp;probar</translation>
    </message>
    <message>
        <source>Probe every chip again in a one-shot sandbox (may take a while)</source>
        <translation>Volver a probar cada chip en un sandbox de un solo uso (puede tardar)</translation>
    </message>
    <message>
        <source>Select all usable</source>
        <translation>Seleccionar todos los utilizables</translation>
    </message>
    <message>
        <source>Clear selection</source>
        <translation>Borrar selección</translation>
    </message>
    <message>
        <source>&amp;Run with selected chips…</source>
        <translation>&amp;Ejecutar con los chips seleccionados…</translation>
    </message>
    <message>
        <source>Probing every chip in a one-shot sandbox…</source>
        <translation>Probando cada chip en un sandbox de un solo uso…</translation>
    </message>
    <message>
        <source>Ascend NPUs</source>
        <translation>NPU Ascend</translation>
    </message>
    <message>
        <source>Could not read the chips</source>
        <translation>No se pudieron leer los chips</translation>
    </message>
    <message>
        <source>Chips probed again.</source>
        <translation>Chips probados de nuevo.</translation>
    </message>
    <message>
        <source>No NPU on this host</source>
        <translation>No hay NPU en este host</translation>
    </message>
    <message>
        <source>The agent found no Ascend chip.</source>
        <translation>El agente no encontró ningún chip Ascend.</translation>
    </message>
    <message>
        <source>%1 of %2 chips usable · source: %3 · read %4</source>
        <translation>%1 de %2 chips utilizables · origen: %3 · leído %4</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>desconocido</translation>
    </message>
    <message>
        <source>Click a usable chip to select it; hover a chip to see its details.</source>
        <translation>Haz clic en un chip utilizable para seleccionarlo; pasa el ratón sobre un chip para ver sus detalles.</translation>
    </message>
    <message>
        <source>Chip %1 — %2, NPU %3 die %4, health %5</source>
        <translation>Chip %1 — %2, NPU %3 dado %4, estado %5</translation>
    </message>
    <message>
        <source>unknown model</source>
        <translation>modelo desconocido</translation>
    </message>
    <message>
        <source>, %1 W</source>
        <translation>, %1 W</translation>
    </message>
    <message>
        <source>Usable: the last probe could open it inside a sandbox.</source>
        <translation>Utilizable: la última prueba pudo abrirlo dentro de un sandbox.</translation>
    </message>
    <message>
        <source>Not usable: %1</source>
        <translation>No utilizable: %1</translation>
    </message>
    <message numerus="yes">
        <source>&amp;Run with %n selected chip(s)…</source>
        <translation>
            <numerusform>&amp;Ejecutar con %n chip seleccionado…</numerusform>
            <numerusform>&amp;Ejecutar con %n chips seleccionados…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>runbox::console::OverviewPage</name>
    <message>
        <source>Overview</source>
        <translation>Resumen</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agente</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>Sandbox</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>Salida de red</translation>
    </message>
    <message>
        <source>Executions</source>
        <translation>Ejecuciones</translation>
    </message>
    <message>
        <source>NPU chips</source>
        <translation>Chips NPU</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>Espacios de trabajo</translation>
    </message>
    <message>
        <source>Sandbox conclusion</source>
        <translation>Conclusión del sandbox</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>desconocido</translation>
    </message>
    <message>
        <source>Runbox %1</source>
        <translation>Runbox %1</translation>
    </message>
    <message>
        <source>Protocol %1 · up %2</source>
        <translation>Protocolo %1 · activo desde hace %2</translation>
    </message>
    <message>
        <source>Clock offset to this host: %1 (compensated)</source>
        <translation>Desfase de reloj con este host: %1 (compensado)</translation>
    </message>
    <message>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <source>%1 on disk</source>
        <translation>%1 en disco</translation>
    </message>
    <message>
        <source>Disk use not reported by this agent</source>
        <translation>Este agente no informa del uso de disco</translation>
    </message>
    <message>
        <source>%1 running</source>
        <translation>%1 en ejecución</translation>
    </message>
    <message>
        <source>%1 queued</source>
        <translation>%1 en cola</translation>
    </message>
    <message>
        <source>Default timeout %1</source>
        <translation>Tiempo límite predeterminado %1</translation>
    </message>
    <message>
        <source>output kept up to %1</source>
        <translation>salida conservada hasta %1</translation>
    </message>
    <message>
        <source>languages: %1</source>
        <translation>lenguajes: %1</translation>
    </message>
    <message>
        <source>Managed executions are not offered by this agent yet.</source>
        <translation>Este agente aún no ofrece ejecuciones gestionadas.</translation>
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
        <translation>Este agente aún no ofrece NPU Ascend.</translation>
    </message>
    <message>
        <source>none</source>
        <translation>ninguno</translation>
    </message>
    <message>
        <source>No NPU on this host.</source>
        <translation>No hay NPU en este host.</translation>
    </message>
    <message>
        <source>%1 of %2 usable</source>
        <translation>%1 de %2 utilizables</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>Origen: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::PackagesDialog</name>
    <message>
        <source>Install packages into %1</source>
        <translation>Instalar paquetes en %1</translation>
    </message>
    <message>
        <source>Uninstall packages from %1</source>
        <translation>Desinstalar paquetes de %1</translation>
    </message>
    <message>
        <source>Packages to install, one per line or separated by spaces, with optional version constraints (numpy, pandas&gt;=2,&lt;3). A new revision is built with the packages of the current one plus these; running executions keep theirs.</source>
        <translation>Paquetes que instalar, uno por línea o separados por espacios, con restricciones de versión opcionales (numpy, pandas&gt;=2,&lt;3). Se construye una revisión nueva con los paquetes de la actual más estos; las ejecuciones en curso conservan los suyos.</translation>
    </message>
    <message>
        <source>Packages to remove, one per line or separated by spaces. A new revision is built without them; running executions keep theirs.</source>
        <translation>Paquetes que quitar, uno por línea o separados por espacios. Se construye una revisión nueva sin ellos; las ejecuciones en curso conservan los suyos.</translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation>&amp;Instalar</translation>
    </message>
    <message>
        <source>&amp;Uninstall</source>
        <translation>&amp;Desinstalar</translation>
    </message>
    <message>
        <source>In the current revision: %1</source>
        <translation>En la revisión actual: %1</translation>
    </message>
    <message>
        <source>Will send: %1</source>
        <translation>Se enviará: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::ProfileDialog</name>
    <message>
        <source>Add agent</source>
        <translation>Añadir agente</translation>
    </message>
    <message>
        <source>Edit agent</source>
        <translation>Editar agente</translation>
    </message>
    <message>
        <source>Token for %1</source>
        <translation>Token de %1</translation>
    </message>
    <message>
        <source>e.g. gpu-node-3</source>
        <translation>p. ej. gpu-node-3</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>sin cambios</translation>
    </message>
    <message>
        <source>contents of agent.token</source>
        <translation>contenido de agent.token</translation>
    </message>
    <message>
        <source>Show the token</source>
        <translation>Mostrar el token</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Nombre:</translation>
    </message>
    <message>
        <source>&amp;URL:</source>
        <translation>&amp;URL:</translation>
    </message>
    <message>
        <source>&amp;Token:</source>
        <translation>&amp;Token:</translation>
    </message>
    <message>
        <source>The token is kept in the system keychain. Where no keychain service is reachable it is kept for this session only, never in a file.</source>
        <translation>El token se guarda en el llavero del sistema. Si no hay ningún servicio de llavero disponible, se conserva solo durante esta sesión, nunca en un archivo.</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Guardar</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>Conectar</translation>
    </message>
    <message>
        <source>Paste the agent&apos;s token (its agent.token file, or a workspace token).</source>
        <translation>Pega el token del agente (su archivo agent.token o un token de espacio de trabajo).</translation>
    </message>
    <message>
        <source>A token has no spaces.</source>
        <translation>Un token no tiene espacios.</translation>
    </message>
    <message>
        <source>https:// agents: the SHA-256 fingerprint of its certificate, from runbox-agent --print-fingerprint on the agent&apos;s host. Empty: only a certificate your system trusts is accepted.</source>
        <translation>Agentes https://: la huella SHA-256 de su certificado, obtenida con runbox-agent --print-fingerprint en el host del agente. Vacía: solo se acepta un certificado en el que confíe su sistema.</translation>
    </message>
    <message>
        <source>TLS &amp;fingerprint:</source>
        <translation>&amp;Huella TLS:</translation>
    </message>
    <message>
        <source>Connect through &amp;SSH</source>
        <translation>Conectar mediante &amp;SSH</translation>
    </message>
    <message>
        <source>Runs your own ssh (your ssh_config, keys and agent; never a password prompt) with a local port forward to the agent.</source>
        <translation>Ejecuta su propio ssh (su ssh_config, sus claves y su agente; nunca pide contraseña) con un reenvío de puerto local hacia el agente.</translation>
    </message>
    <message>
        <source>ssh&apos;s default</source>
        <translation>predeterminado de ssh</translation>
    </message>
    <message>
        <source>Agent&apos;s unix socket</source>
        <translation>Socket unix del agente</translation>
    </message>
    <message>
        <source>Agent&apos;s TCP address</source>
        <translation>Dirección TCP del agente</translation>
    </message>
    <message>
        <source>SSH &amp;host:</source>
        <translation>&amp;Host SSH:</translation>
    </message>
    <message>
        <source>SSH &amp;user:</source>
        <translation>&amp;Usuario SSH:</translation>
    </message>
    <message>
        <source>SSH &amp;port:</source>
        <translation>&amp;Puerto SSH:</translation>
    </message>
    <message>
        <source>&amp;Remote end:</source>
        <translation>Extremo &amp;remoto:</translation>
    </message>
    <message>
        <source>The remote socket must be an absolute path, e.g. %1.</source>
        <translation>El socket remoto debe ser una ruta absoluta, p. ej. %1.</translation>
    </message>
    <message>
        <source>The remote address must be host:port, e.g. %1.</source>
        <translation>La dirección remota debe ser host:puerto, p. ej. %1.</translation>
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
        <translation>No conectado</translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotaEditor</name>
    <message>
        <source>Unlimited</source>
        <translation>Ilimitado</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>0 = no limit</source>
        <translation>0 = sin límite</translation>
    </message>
    <message>
        <source>= %1 bytes</source>
        <translation>= %1 bytes</translation>
    </message>
    <message>
        <source>= %1 bytes (not a whole hundredth of a GiB; kept exactly unless edited)</source>
        <translation>= %1 bytes (no es un múltiplo de 0,01 GiB; se conserva exacto salvo que lo edites)</translation>
    </message>
    <message>
        <source>= %1</source>
        <translation>= %1</translation>
    </message>
    <message>
        <source> cores</source>
        <translation> núcleos</translation>
    </message>
    <message>
        <source>= %1 millicores (cgroup v2 cpu.max)</source>
        <translation>= %1 milinúcleos (cgroup v2 cpu.max)</translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotaValues</name>
    <message>
        <source>(unset)</source>
        <translation>(sin definir)</translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation>ilimitado</translation>
    </message>
    <message>
        <source>Workspace total</source>
        <translation>Total del espacio de trabajo</translation>
    </message>
    <message>
        <source>Retained output</source>
        <translation>Salida conservada</translation>
    </message>
    <message>
        <source>Upload per file</source>
        <translation>Subida por archivo</translation>
    </message>
    <message>
        <source>Upload per request</source>
        <translation>Subida por solicitud</translation>
    </message>
    <message>
        <source>Default timeout</source>
        <translation>Tiempo límite predeterminado</translation>
    </message>
    <message>
        <source>Maximum timeout</source>
        <translation>Tiempo límite máximo</translation>
    </message>
    <message>
        <source>Concurrent executions</source>
        <translation>Ejecuciones simultáneas</translation>
    </message>
    <message>
        <source>Light workspaces</source>
        <translation>Espacios de trabajo ligeros</translation>
    </message>
    <message>
        <source>Disk a workspace may use (allocated blocks); an execution that grows past it ends as quota_exceeded.</source>
        <translation>Disco que puede usar un espacio de trabajo (bloques asignados); una ejecución que lo supere termina como quota_exceeded.</translation>
    </message>
    <message>
        <source>Output kept per execution: head and tail are kept around a marker, the run never fails for it.</source>
        <translation>Salida conservada por ejecución: se guardan el principio y el final alrededor de una marca; la ejecución nunca falla por ello.</translation>
    </message>
    <message>
        <source>Largest single file accepted by the file API.</source>
        <translation>Archivo individual más grande que acepta la API de archivos.</translation>
    </message>
    <message>
        <source>Largest upload request accepted by the file API.</source>
        <translation>Solicitud de subida más grande que acepta la API de archivos.</translation>
    </message>
    <message>
        <source>Timeout of an execution that does not ask for one.</source>
        <translation>Tiempo límite de una ejecución que no pide uno.</translation>
    </message>
    <message>
        <source>Longest timeout an execution may ask for.</source>
        <translation>Tiempo límite más largo que puede pedir una ejecución.</translation>
    </message>
    <message>
        <source>Executions running at once on this host; later ones queue.</source>
        <translation>Ejecuciones simultáneas en este host; las siguientes esperan en cola.</translation>
    </message>
    <message>
        <source>%1 cannot be negative.</source>
        <translation>%1 no puede ser negativo.</translation>
    </message>
    <message>
        <source>%1 is above the largest value the agent accepts (%2).</source>
        <translation>%1 supera el valor máximo que acepta el agente (%2).</translation>
    </message>
    <message>
        <source>The default timeout must be limited and no longer than the maximum timeout.</source>
        <translation>El tiempo límite predeterminado debe ser finito y no mayor que el máximo.</translation>
    </message>
    <message>
        <source>%1: %2 → %3, by %4, %5</source>
        <translation>%1: %2 → %3, por %4, %5</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>desconocido</translation>
    </message>
    <message>
        <source>%1 cores</source>
        <translation>%1 núcleos</translation>
    </message>
    <message>
        <source>Memory per execution</source>
        <translation>Memoria por ejecución</translation>
    </message>
    <message>
        <source>Processes per execution</source>
        <translation>Procesos por ejecución</translation>
    </message>
    <message>
        <source>CPU per execution</source>
        <translation>CPU por ejecución</translation>
    </message>
    <message>
        <source>CPU time one execution may use per second, in cores (cgroup v2 cpu.max). Only hosts that delegate the cpu controller enforce it; elsewhere executions under a limit are refused.</source>
        <translation>Tiempo de CPU que una ejecución puede usar por segundo, en núcleos (cgroup v2 cpu.max). Solo lo aplican los hosts que delegan el controlador cpu; en los demás se rechazan las ejecuciones con límite.</translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotasPage</name>
    <message>
        <source>Quotas</source>
        <translation>Cuotas</translation>
    </message>
    <message>
        <source>Limits in force for new executions</source>
        <translation>Límites vigentes para nuevas ejecuciones</translation>
    </message>
    <message>
        <source>Sizes are in GiB (1 GiB = 2³⁰ bytes). 0 or Unlimited means no limit. A change applies to executions created after it; running ones keep the limits they started with.</source>
        <translation>Los tamaños están en GiB (1 GiB = 2³⁰ bytes). 0 o Ilimitado significa sin límite. Un cambio se aplica a las ejecuciones creadas después; las que están en marcha conservan los límites con que empezaron.</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>&amp;Aplicar</translation>
    </message>
    <message>
        <source>&amp;Revert</source>
        <translation>&amp;Revertir</translation>
    </message>
    <message>
        <source>Send the changed quotas to the agent</source>
        <translation>Enviar al agente las cuotas cambiadas</translation>
    </message>
    <message>
        <source>Show the agent&apos;s values again</source>
        <translation>Volver a mostrar los valores del agente</translation>
    </message>
    <message>
        <source>Last change</source>
        <translation>Último cambio</translation>
    </message>
    <message>
        <source>quota settings</source>
        <translation>ajustes de cuotas</translation>
    </message>
    <message>
        <source>Could not read the quotas</source>
        <translation>No se pudieron leer las cuotas</translation>
    </message>
    <message>
        <source>No change is recorded, or this agent does not report its audit trail with the quotas.</source>
        <translation>No hay cambios registrados, o este agente no informa de su registro de auditoría junto con las cuotas.</translation>
    </message>
    <message>
        <source>The agent refused the quotas (HTTP %1): %2</source>
        <translation>El agente rechazó las cuotas (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Quotas applied.</source>
        <translation>Cuotas aplicadas.</translation>
    </message>
</context>
<context>
    <name>runbox::console::RunDialog</name>
    <message>
        <source>Run</source>
        <translation>Ejecutar</translation>
    </message>
    <message>
        <source>New run</source>
        <translation>Nueva ejecución</translation>
    </message>
    <message>
        <source>New strong workspace</source>
        <translation>Nuevo espacio de trabajo con aislamiento fuerte</translation>
    </message>
    <message>
        <source>Shell (bash)</source>
        <translation>Shell (bash)</translation>
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
        <translation>No está instalado en este host</translation>
    </message>
    <message>
        <source>workspace root</source>
        <translation>raíz del espacio de trabajo</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>agent default</source>
        <translation>predeterminado del agente</translation>
    </message>
    <message>
        <source>none (e.g. 2, 5)</source>
        <translation>ninguno (p. ej. 2, 5)</translation>
    </message>
    <message>
        <source>Add a variable</source>
        <translation>Añadir una variable</translation>
    </message>
    <message>
        <source>Remove the selected variable</source>
        <translation>Quitar la variable seleccionada</translation>
    </message>
    <message>
        <source>&amp;Workspace:</source>
        <translation>Espacio de &amp;trabajo:</translation>
    </message>
    <message>
        <source>&amp;Kind:</source>
        <translation>&amp;Tipo:</translation>
    </message>
    <message>
        <source>&amp;Script:</source>
        <translation>&amp;Script:</translation>
    </message>
    <message>
        <source>Working &amp;directory:</source>
        <translation>&amp;Directorio de trabajo:</translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation>&amp;Entorno:</translation>
    </message>
    <message>
        <source>&amp;Timeout:</source>
        <translation>Tiempo &amp;límite:</translation>
    </message>
    <message>
        <source>NPU &amp;chips:</source>
        <translation>&amp;Chips NPU:</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Ejecutar</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Chips are logic ids separated by commas, e.g. 2, 5.</source>
        <translation>Los chips son ids lógicos separados por comas, p. ej. 2, 5.</translation>
    </message>
    <message>
        <source>None (the host&apos;s interpreters)</source>
        <translation>Ninguno (los intérpretes del host)</translation>
    </message>
    <message>
        <source>A science environment from the Environments page: the run sees its packages at /opt/science-env (strong workspaces)</source>
        <translation>Un entorno científico de la página Entornos: la ejecución ve sus paquetes en /opt/science-env (espacios de trabajo fuertes)</translation>
    </message>
    <message>
        <source>Science en&amp;vironment:</source>
        <translation>Entorno &amp;científico:</translation>
    </message>
    <message>
        <source>This agent has no science environments yet.</source>
        <translation>Este agente aún no tiene entornos científicos.</translation>
    </message>
    <message>
        <source>%1 (%2, %3)</source>
        <translation>%1 (%2, %3)</translation>
    </message>
    <message>
        <source>No ready revision yet (%1)</source>
        <translation>Todavía no hay una revisión lista (%1)</translation>
    </message>
    <message>
        <source>This light workspace was created without a science environment: choose none, or a strong or new workspace (a light workspace gets its environment when it is created).</source>
        <translation>Este espacio de trabajo ligero se creó sin entorno científico: elija ninguno, o un espacio de trabajo fuerte o nuevo (un espacio de trabajo ligero recibe su entorno al crearse).</translation>
    </message>
    <message>
        <source>This light workspace runs the science environment it was created with (%1): choose that one.</source>
        <translation>Este espacio de trabajo ligero ejecuta el entorno científico con el que se creó (%1): elija ese.</translation>
    </message>
</context>
<context>
    <name>runbox::console::RunRequest</name>
    <message>
        <source>The working directory is relative to the workspace: remove the leading &apos;/&apos;.</source>
        <translation>El directorio de trabajo es relativo al espacio de trabajo: quita la &apos;/&apos; inicial.</translation>
    </message>
    <message>
        <source>The working directory may not contain NUL or &apos;\&apos;.</source>
        <translation>El directorio de trabajo no puede contener NUL ni &apos;\&apos;.</translation>
    </message>
    <message>
        <source>The working directory is longer than 4096 bytes.</source>
        <translation>El directorio de trabajo supera los 4096 bytes.</translation>
    </message>
    <message>
        <source>The working directory may not contain &apos;.&apos;, &apos;..&apos; or empty segments.</source>
        <translation>El directorio de trabajo no puede contener &apos;.&apos;, &apos;..&apos; ni segmentos vacíos.</translation>
    </message>
    <message>
        <source>Choose shell, Python or R.</source>
        <translation>Elige shell, Python o R.</translation>
    </message>
    <message>
        <source>The script is empty.</source>
        <translation>El script está vacío.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid environment variable name.</source>
        <translation>&quot;%1&quot; no es un nombre de variable de entorno válido.</translation>
    </message>
    <message>
        <source>The variable %1 is set twice.</source>
        <translation>La variable %1 está definida dos veces.</translation>
    </message>
    <message>
        <source>The timeout cannot be negative.</source>
        <translation>El tiempo límite no puede ser negativo.</translation>
    </message>
</context>
<context>
    <name>runbox::console::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Preferencias</translation>
    </message>
    <message>
        <source> Mi characters</source>
        <translation> Mi caracteres</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Idioma:</translation>
    </message>
    <message>
        <source>Log view &amp;keeps:</source>
        <translation>La vista del registro &amp;conserva:</translation>
    </message>
    <message>
        <source>A new language applies the next time the console starts.</source>
        <translation>Un idioma nuevo se aplica la próxima vez que se inicie la consola.</translation>
    </message>
    <message>
        <source>The ssh that SSH profiles run: a name on PATH or a path, e.g. a wrapper that adds options. Applies to connections opened from now on.</source>
        <translation>El ssh que ejecutan los perfiles SSH: un nombre del PATH o una ruta, p. ej. un envoltorio que añade opciones. Se aplica a las conexiones que se abran a partir de ahora.</translation>
    </message>
    <message>
        <source>SSH &amp;program:</source>
        <translation>&amp;Programa SSH:</translation>
    </message>
    <message>
        <source>The fleet file: the agents list, shared with the runbox CLI and the Python client (--fleet to use another).</source>
        <translation>El archivo de flota: la lista de agentes, compartida con la CLI runbox y el cliente de Python (--fleet para usar otro).</translation>
    </message>
    <message>
        <source>Agents are kept in:</source>
        <translation>Los agentes se guardan en:</translation>
    </message>
</context>
<context>
    <name>runbox::console::SshTunnel</name>
    <message numerus="yes">
        <source>ssh did not open the local port within %n s.</source>
        <translation>
            <numerusform>ssh no abrió el puerto local en %n s.</numerusform>
            <numerusform>ssh no abrió el puerto local en %n s.</numerusform>
        </translation>
    </message>
    <message>
        <source>No free local port for the SSH tunnel.</source>
        <translation>No hay un puerto local libre para el túnel SSH.</translation>
    </message>
    <message>
        <source>Cannot run %1: %2</source>
        <translation>No se puede ejecutar %1: %2</translation>
    </message>
    <message>
        <source>ssh was killed.</source>
        <translation>ssh fue terminado a la fuerza.</translation>
    </message>
    <message>
        <source>ssh exited with status %1.</source>
        <translation>ssh terminó con el estado %1.</translation>
    </message>
</context>
<context>
    <name>runbox::console::TokenVault</name>
    <message>
        <source>Tokens are kept for this session only (keychain disabled).</source>
        <translation>Los tokens se conservan solo durante esta sesión (llavero desactivado).</translation>
    </message>
    <message>
        <source>No keychain service is reachable (%1). Tokens are kept for this session only and are never written to disk; you will be asked again next time.</source>
        <translation>No se puede acceder a ningún servicio de llavero (%1). Los tokens se conservan solo durante esta sesión y nunca se escriben en disco; se te volverán a pedir la próxima vez.</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>error desconocido</translation>
    </message>
</context>
<context>
    <name>runbox::console::TransferPanel</name>
    <message>
        <source>Transfers</source>
        <translation>Transferencias</translation>
    </message>
    <message>
        <source>C&amp;lear finished</source>
        <translation>&amp;Limpiar terminadas</translation>
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
        <translation>Cancelar</translation>
    </message>
    <message>
        <source>%p% of %1</source>
        <translation>%p% de %1</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Hecho</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Error: %1</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Cancelada</translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspaceInfo</name>
    <message>
        <source>Strong</source>
        <translation>Fuerte</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Ligero</translation>
    </message>
    <message>
        <source>Background processes killed (%1)</source>
        <translation>Procesos en segundo plano terminados (%1)</translation>
    </message>
    <message>
        <source>Background processes killed (%1): %2</source>
        <translation>Procesos en segundo plano terminados (%1): %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspaceTableModel</name>
    <message>
        <source>Confinement: %1</source>
        <translation>Confinamiento: %1</translation>
    </message>
    <message>
        <source>never evicted</source>
        <translation>nunca se desaloja</translation>
    </message>
    <message>
        <source>evicted after %1 s idle</source>
        <translation>se desaloja tras %1 s inactivo</translation>
    </message>
    <message>
        <source>kept for this session</source>
        <translation>guardado en esta sesión</translation>
    </message>
    <message>
        <source>The scoped token of this workspace is kept in memory until the console closes; it is never written to disk.</source>
        <translation>El token de ámbito de este espacio de trabajo se guarda en memoria hasta que se cierre la consola; nunca se escribe en disco.</translation>
    </message>
    <message>
        <source>The agent gives a workspace&apos;s token only when it is created: tokens of workspaces made elsewhere cannot be copied here.</source>
        <translation>El agente solo entrega el token de un espacio de trabajo al crearlo: los tokens de espacios de trabajo creados en otro lugar no se pueden copiar aquí.</translation>
    </message>
    <message>
        <source>build workspace of environment %1</source>
        <translation>espacio de trabajo de compilación del entorno %1</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Espacio de trabajo</translation>
    </message>
    <message>
        <source>Isolation</source>
        <translation>Aislamiento</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Creado</translation>
    </message>
    <message>
        <source>UID</source>
        <translation>UID</translation>
    </message>
    <message>
        <source>Idle timeout</source>
        <translation>Tiempo de inactividad</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>Notas</translation>
    </message>
    <message>
        <source>As the agent said when the workspace was created.</source>
        <translation>Según lo indicó el agente al crear el espacio de trabajo.</translation>
    </message>
    <message>
        <source>Not measured yet.</source>
        <translation>Aún no medido.</translation>
    </message>
    <message>
        <source>%1 bytes on disk, as the workspace quota counts them.</source>
        <translation>%1 bytes en disco, tal como los cuenta la cuota del espacio de trabajo.</translation>
    </message>
    <message>
        <source>At least %1 bytes: the walk stopped at the agent&apos;s entry cap.</source>
        <translation>Al menos %1 bytes: el recorrido se detuvo en el límite de entradas del agente.</translation>
    </message>
    <message>
        <source>%1, last %2</source>
        <translation>%1, la última %2</translation>
    </message>
    <message>
        <source>Executions the agent keeps records of (managed runs, environment builds, NPU jobs; sync executions are not recorded) and when the newest was started.</source>
        <translation>Ejecuciones de las que el agente guarda registro (ejecuciones gestionadas, construcciones de entornos, trabajos de NPU; las ejecuciones síncronas no se registran) y cuándo empezó la más reciente.</translation>
    </message>
    <message>
        <source>runs environment %1</source>
        <translation>ejecuta el entorno %1</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Tamaño</translation>
    </message>
    <message>
        <source>Executions</source>
        <translation>Ejecuciones</translation>
    </message>
    <message>
        <source>evicted at %1 if idle</source>
        <translation>se desaloja a las %1 si sigue inactivo</translation>
    </message>
    <message>
        <source>in use (evicted after %1 s idle)</source>
        <translation>en uso (se desaloja tras %1 s inactivo)</translation>
    </message>
    <message>
        <source>Evicted after %1 s without use; last used %2.</source>
        <translation>Se desaloja tras %1 s sin uso; último uso %2.</translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspacesPage</name>
    <message>
        <source>Workspaces</source>
        <translation>Espacios de trabajo</translation>
    </message>
    <message>
        <source>&amp;Create…</source>
        <translation>&amp;Crear…</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>&amp;Eliminar…</translation>
    </message>
    <message>
        <source>Copy &amp;token</source>
        <translation>Copiar &amp;token</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>Actuali&amp;zar</translation>
    </message>
    <message>
        <source>Create one strong workspace or a batch of light ones</source>
        <translation>Crear un espacio de trabajo fuerte o un lote de ligeros</translation>
    </message>
    <message>
        <source>Delete the selected workspaces and their files</source>
        <translation>Eliminar los espacios de trabajo seleccionados y sus archivos</translation>
    </message>
    <message>
        <source>Copy the scoped token of a workspace created in this session</source>
        <translation>Copiar el token de ámbito de un espacio de trabajo creado en esta sesión</translation>
    </message>
    <message>
        <source>The agent gives a workspace&apos;s scoped token only when it is created: the console keeps the tokens of the workspaces created here in memory for this session only and never writes them to disk.</source>
        <translation>El agente solo entrega el token de ámbito de un espacio de trabajo al crearlo: la consola guarda los tokens de los espacios de trabajo creados aquí en memoria, solo durante esta sesión, y nunca los escribe en disco.</translation>
    </message>
    <message>
        <source>workspaces</source>
        <translation>espacios de trabajo</translation>
    </message>
    <message>
        <source>Could not read the workspaces</source>
        <translation>No se pudieron leer los espacios de trabajo</translation>
    </message>
    <message>
        <source>Light tier: %1 of %2 workspaces</source>
        <translation>Nivel ligero: %1 de %2 espacios de trabajo</translation>
    </message>
    <message>
        <source>Light tier: %1 workspaces, no capacity set</source>
        <translation>Nivel ligero: %1 espacios de trabajo, sin capacidad fijada</translation>
    </message>
    <message>
        <source>idle light workspaces evicted after %1 s by default</source>
        <translation>los espacios de trabajo ligeros inactivos se desalojan tras %1 s por omisión</translation>
    </message>
    <message>
        <source>Light tier unavailable: %1</source>
        <translation>Nivel ligero no disponible: %1</translation>
    </message>
    <message>
        <source>Creating workspaces…</source>
        <translation>Creando espacios de trabajo…</translation>
    </message>
    <message>
        <source>Could not create workspaces: %1</source>
        <translation>No se pudieron crear los espacios de trabajo: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) created.</source>
        <translation>
            <numerusform>%n espacio de trabajo creado.</numerusform>
            <numerusform>%n espacios de trabajo creados.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not made: the agent&apos;s capacity for them is used up (its light-workspace quota or its pool&apos;s capacity).</source>
        <translation>
            <numerusform>%n no creado: la capacidad del agente para ellos está agotada (su cuota de espacios de trabajo ligeros o la capacidad de su pool).</numerusform>
            <numerusform>%n no creados: la capacidad del agente para ellos está agotada (su cuota de espacios de trabajo ligeros o la capacidad de su pool).</numerusform>
        </translation>
    </message>
    <message>
        <source>Delete workspaces</source>
        <translation>Eliminar espacios de trabajo</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n workspace(s) and every file in them? This cannot be undone.</source>
        <translation>
            <numerusform>¿Eliminar %n espacio de trabajo y todos sus archivos? No se puede deshacer.</numerusform>
            <numerusform>¿Eliminar %n espacios de trabajo y todos sus archivos? No se puede deshacer.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleting %n workspace(s)…</source>
        <translation>
            <numerusform>Eliminando %n espacio de trabajo…</numerusform>
            <numerusform>Eliminando %n espacios de trabajo…</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) not deleted:</source>
        <translation>
            <numerusform>%n espacio de trabajo no eliminado:</numerusform>
            <numerusform>%n espacios de trabajo no eliminados:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) deleted.</source>
        <translation>
            <numerusform>%n espacio de trabajo eliminado.</numerusform>
            <numerusform>%n espacios de trabajo eliminados.</numerusform>
        </translation>
    </message>
    <message>
        <source>No token kept for this workspace: the agent gives it only when the workspace is created.</source>
        <translation>No hay token guardado para este espacio de trabajo: el agente solo lo entrega al crearlo.</translation>
    </message>
    <message>
        <source>Token of %1 copied to the clipboard.</source>
        <translation>Token de %1 copiado al portapapeles.</translation>
    </message>
    <message>
        <source>Open &amp;files</source>
        <translation>Abrir &amp;archivos</translation>
    </message>
    <message>
        <source>Browse the files of the selected workspace</source>
        <translation>Explorar los archivos del espacio de trabajo seleccionado</translation>
    </message>
</context>
</TS>
