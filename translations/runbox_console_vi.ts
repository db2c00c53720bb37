<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="vi">
<context>
    <name>runbox::NetworkPolicyGrammar</name>
    <message>
        <source>empty host name</source>
        <translation>tên máy chủ trống</translation>
    </message>
    <message>
        <source>IP literals are not allowed; use a domain name</source>
        <translation>không cho phép địa chỉ IP; hãy dùng tên miền</translation>
    </message>
    <message>
        <source>not a valid domain name</source>
        <translation>không phải tên miền hợp lệ</translation>
    </message>
    <message>
        <source>a single label is not allowed; name a domain such as example.org</source>
        <translation>không cho phép tên chỉ một nhãn; hãy ghi tên miền như example.org</translation>
    </message>
    <message>
        <source>labels must be letters, digits and inner hyphens, 1-63 characters</source>
        <translation>mỗi nhãn chỉ gồm chữ, số và gạch nối ở giữa, dài 1–63 ký tự</translation>
    </message>
    <message>
        <source>empty entry</source>
        <translation>mục trống</translation>
    </message>
    <message>
        <source>&apos;/&apos;, &apos;@&apos; and whitespace are not allowed</source>
        <translation>không cho phép &apos;/&apos;, &apos;@&apos; và khoảng trắng</translation>
    </message>
    <message>
        <source>&apos;*&apos; is only allowed as a leading &quot;*.&quot;</source>
        <translation>&apos;*&apos; chỉ được dùng ở dạng tiền tố &quot;*.&quot;</translation>
    </message>
    <message>
        <source>bad port (must be 1-65535)</source>
        <translation>cổng không hợp lệ (phải từ 1 đến 65535)</translation>
    </message>
    <message>
        <source>not an address prefix such as 10.0.0.0/8 or fd00::/8</source>
        <translation>không phải tiền tố địa chỉ như 10.0.0.0/8 hay fd00::/8</translation>
    </message>
    <message>
        <source>enter a host name such as pypi.org or pypi.org:443</source>
        <translation>hãy nhập tên máy chủ như pypi.org hoặc pypi.org:443</translation>
    </message>
    <message>
        <source>IP addresses are never allowed; egress admits domain names only</source>
        <translation>không bao giờ cho phép địa chỉ IP; truy cập ra ngoài chỉ nhận tên miền</translation>
    </message>
    <message>
        <source>no domain is allowed</source>
        <translation>không tên miền nào được phép</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentConnection</name>
    <message>
        <source>Disconnected</source>
        <translation>Đã ngắt kết nối</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Đang kết nối…</translation>
    </message>
    <message>
        <source>Connected</source>
        <translation>Đã kết nối</translation>
    </message>
    <message numerus="yes">
        <source>Reconnecting in %n s</source>
        <translation>
            <numerusform>Kết nối lại sau %n giây</numerusform>
        </translation>
    </message>
    <message>
        <source>Token refused</source>
        <translation>Token bị từ chối</translation>
    </message>
    <message>
        <source>Incompatible agent</source>
        <translation>Agent không tương thích</translation>
    </message>
    <message>
        <source>Disconnected from %1.</source>
        <translation>Đã ngắt kết nối với %1.</translation>
    </message>
    <message>
        <source>%1 does not answer like a Runbox agent (HTTP %2).</source>
        <translation>%1 không trả lời như một agent Runbox (HTTP %2).</translation>
    </message>
    <message>
        <source>The agent refused the token: %1</source>
        <translation>Agent từ chối token: %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Health check failed (HTTP %1): %2</source>
        <translation>Kiểm tra tình trạng thất bại (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Connected to %1 (agent %2).</source>
        <translation>Đã kết nối tới %1 (agent %2).</translation>
    </message>
    <message>
        <source>Reconnected to %1.</source>
        <translation>Đã kết nối lại tới %1.</translation>
    </message>
    <message numerus="yes">
        <source>Lost connection to %1 (%2); reconnecting in %n s.</source>
        <translation>
            <numerusform>Mất kết nối với %1 (%2); sẽ kết nối lại sau %n giây.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>no answer within %n s</source>
        <translation>
            <numerusform>không có phản hồi trong %n giây</numerusform>
        </translation>
    </message>
    <message>
        <source>Certificate refused</source>
        <translation>Chứng chỉ bị từ chối</translation>
    </message>
    <message>
        <source>To trust this agent, compare the fingerprint with the output of runbox-agent --print-fingerprint on its host, then enter it as the agent&apos;s TLS fingerprint (Edit agent).</source>
        <translation>Để tin cậy agent này, hãy so sánh dấu vân tay với kết quả của runbox-agent --print-fingerprint trên máy của nó, rồi nhập nó làm dấu vân tay TLS của agent (Sửa agent).</translation>
    </message>
    <message>
        <source>Opening SSH tunnel…</source>
        <translation>Đang mở đường hầm SSH…</translation>
    </message>
    <message numerus="yes">
        <source>SSH tunnel failed (%1); retrying in %n s</source>
        <translation>
            <numerusform>Đường hầm SSH thất bại (%1); thử lại sau %n giây</numerusform>
        </translation>
    </message>
    <message>
        <source>SSH tunnel: %1</source>
        <translation>Đường hầm SSH: %1</translation>
    </message>
    <message>
        <source>%1 (ssh: %2)</source>
        <translation>%1 (ssh: %2)</translation>
    </message>
    <message>
        <source>SSH refused: %1</source>
        <translation>SSH từ chối: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentListActions</name>
    <message>
        <source>Agents</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>The agents list could not be read: %1</source>
        <translation>Không đọc được danh sách agent: %1</translation>
    </message>
    <message>
        <source>The agents list was not saved: %1</source>
        <translation>Danh sách agent chưa được lưu: %1</translation>
    </message>
    <message>
        <source>Remove agent</source>
        <translation>Xóa agent</translation>
    </message>
    <message>
        <source>Remove %1 and forget its token?</source>
        <translation>Xóa %1 và quên token của nó?</translation>
    </message>
    <message>
        <source>Agent certificate</source>
        <translation>Chứng chỉ của agent</translation>
    </message>
    <message>
        <source>%1 presents a certificate no authority vouches for. Its SHA-256 fingerprint is:

%2

Compare it with the output of runbox-agent --print-fingerprint on the agent&apos;s host (or its log). Pin it and connect only if they are the same.</source>
        <translation>%1 đưa ra một chứng chỉ không được tổ chức nào bảo đảm. Dấu vân tay SHA-256 của nó là:

%2

Hãy so sánh với kết quả của runbox-agent --print-fingerprint trên máy của agent (hoặc nhật ký của nó). Chỉ ghim và kết nối nếu chúng giống nhau.</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentPage</name>
    <message>
        <source>No agent selected</source>
        <translation>Chưa chọn agent</translation>
    </message>
    <message>
        <source>Add an agent or pick one in the list on the left, then connect.</source>
        <translation>Hãy thêm một agent hoặc chọn trong danh sách bên trái, rồi kết nối.</translation>
    </message>
    <message>
        <source>Not connected</source>
        <translation>Chưa kết nối</translation>
    </message>
    <message>
        <source>Waiting for %1: %2</source>
        <translation>Đang chờ %1: %2</translation>
    </message>
    <message>
        <source>Not offered by this agent yet</source>
        <translation>Agent này chưa hỗ trợ</translation>
    </message>
    <message>
        <source>%1 does not offer %2 yet (%3 is not there). The page lights up by itself once the agent is upgraded.</source>
        <translation>%1 chưa hỗ trợ %2 (chưa có %3). Trang này sẽ tự hoạt động khi agent được nâng cấp.</translation>
    </message>
    <message>
        <source>The agent</source>
        <translation>Agent</translation>
    </message>
</context>
<context>
    <name>runbox::console::AgentProfile</name>
    <message>
        <source>Give the agent a name.</source>
        <translation>Hãy đặt tên cho agent.</translation>
    </message>
    <message>
        <source>The URL must start with http:// or https://, e.g. http://127.0.0.1:4311.</source>
        <translation>URL phải bắt đầu bằng http:// hoặc https://, ví dụ http://127.0.0.1:4311.</translation>
    </message>
    <message>
        <source>The URL has no host.</source>
        <translation>URL không có máy chủ.</translation>
    </message>
    <message>
        <source>The URL must be the agent&apos;s base address, without a path.</source>
        <translation>URL phải là địa chỉ gốc của agent, không kèm đường dẫn.</translation>
    </message>
    <message>
        <source>The TLS fingerprint must be the agent&apos;s SHA-256 fingerprint (AB:CD:…, as runbox-agent --print-fingerprint prints it).</source>
        <translation>Dấu vân tay TLS phải là dấu vân tay SHA-256 của agent (AB:CD:…, như runbox-agent --print-fingerprint in ra).</translation>
    </message>
    <message>
        <source>A TLS fingerprint needs an https:// URL.</source>
        <translation>Dấu vân tay TLS cần một URL https://.</translation>
    </message>
    <message>
        <source>Give the SSH host.</source>
        <translation>Hãy nhập máy chủ SSH.</translation>
    </message>
    <message>
        <source>The SSH host must be a host name or address (no spaces, no leading &apos;-&apos;, no &apos;@&apos;, &apos;:&apos; or &apos;/&apos;).</source>
        <translation>Máy chủ SSH phải là tên máy hoặc địa chỉ (không có khoảng trắng, không bắt đầu bằng &apos;-&apos;, không có &apos;@&apos;, &apos;:&apos; hay &apos;/&apos;).</translation>
    </message>
    <message>
        <source>The SSH user must be a user name (no spaces, no leading &apos;-&apos;).</source>
        <translation>Người dùng SSH phải là tên người dùng (không có khoảng trắng, không bắt đầu bằng &apos;-&apos;).</translation>
    </message>
    <message>
        <source>The SSH port must be between 1 and 65535.</source>
        <translation>Cổng SSH phải nằm trong khoảng 1 đến 65535.</translation>
    </message>
    <message>
        <source>The remote end has no spaces.</source>
        <translation>Đầu từ xa không được có khoảng trắng.</translation>
    </message>
    <message>
        <source>The remote socket must be an absolute path, e.g. %1.</source>
        <translation>Socket từ xa phải là đường dẫn tuyệt đối, ví dụ %1.</translation>
    </message>
    <message>
        <source>The remote address must be host:port, e.g. %1.</source>
        <translation>Địa chỉ từ xa phải có dạng máy:cổng, ví dụ %1.</translation>
    </message>
    <message>
        <source>A TLS fingerprint needs an https:// URL; an SSH profile speaks plain HTTP inside the tunnel.</source>
        <translation>Dấu vân tay TLS cần URL https://; hồ sơ SSH dùng HTTP thường bên trong đường hầm.</translation>
    </message>
    <message>
        <source>A unix-socket agent is reached through SSH: choose &quot;Connect through SSH&quot; and give the socket as the remote end.</source>
        <translation>Agent dùng unix socket được kết nối qua SSH: chọn “Kết nối qua SSH” và nhập socket làm đầu từ xa.</translation>
    </message>
    <message>
        <source>The name must be 1-64 letters, digits, &apos;_&apos; or &apos;-&apos; (it names the agent in the fleet file that the CLI reads too).</source>
        <translation>Tên phải gồm 1-64 chữ cái, chữ số, &apos;_&apos; hoặc &apos;-&apos; (đó là tên của agent trong tệp fleet mà CLI cũng đọc).</translation>
    </message>
</context>
<context>
    <name>runbox::console::ChipTileDelegate</name>
    <message>
        <source>health ?</source>
        <translation>tình trạng ?</translation>
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
        <translation>Đang dùng · %1</translation>
    </message>
    <message>
        <source>In use by %1 · %2</source>
        <translation>Đang được %1 dùng · %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::ConnectionManager</name>
    <message>
        <source>No token is stored for %1.</source>
        <translation>Chưa lưu token cho %1.</translation>
    </message>
    <message>
        <source>%1: no pool host nonce to derive its token from (%2).</source>
        <translation>%1: không có nonce của máy chủ pool để suy ra token của nó (%2).</translation>
    </message>
    <message>
        <source>the agent shows none: is it started with --pool-secret-file?</source>
        <translation>agent không hiển thị nonce nào: nó có được khởi động với --pool-secret-file không?</translation>
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
        <translation>Tạo workspace</translation>
    </message>
    <message>
        <source>&amp;Strong: its own sandbox per execution (one workspace)</source>
        <translation>&amp;Mạnh: mỗi lần thực thi có sandbox riêng (một workspace)</translation>
    </message>
    <message>
        <source>&amp;Light: own uid, Landlock and rlimits (a batch)</source>
        <translation>&amp;Nhẹ: uid riêng, Landlock và rlimits (một lô)</translation>
    </message>
    <message>
        <source>This agent cannot make light workspaces: %1</source>
        <translation>Agent này không tạo được workspace nhẹ: %1</translation>
    </message>
    <message>
        <source>&amp;Create</source>
        <translation>&amp;Tạo</translation>
    </message>
    <message>
        <source>How many:</source>
        <translation>Số lượng:</translation>
    </message>
    <message>
        <source>Up to %1 light workspaces at once; past the agent&apos;s capacity the answer says how many were not made.</source>
        <translation>Tối đa %1 workspace nhẹ mỗi lần; vượt quá sức chứa của agent, câu trả lời cho biết bao nhiêu cái không được tạo.</translation>
    </message>
    <message>
        <source>Strong workspaces are created one at a time.</source>
        <translation>Workspace mạnh được tạo từng cái một.</translation>
    </message>
</context>
<context>
    <name>runbox::console::EntryListModel</name>
    <message>
        <source>%1: refused — %2</source>
        <translation>%1: bị từ chối — %2</translation>
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
        <translation>Tên chỉ gồm chữ, số và &apos;_&apos;, không bắt đầu bằng số.</translation>
    </message>
    <message>
        <source>%1 is already set above.</source>
        <translation>%1 đã được đặt ở trên.</translation>
    </message>
    <message>
        <source>Variable</source>
        <translation>Biến</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Giá trị</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentInfo</name>
    <message>
        <source>Building</source>
        <translation>Đang dựng</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Sẵn sàng</translation>
    </message>
    <message>
        <source>Build failed</source>
        <translation>Dựng thất bại</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Không rõ</translation>
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
        <translation>Hãy nêu ít nhất một gói.</translation>
    </message>
    <message>
        <source>At most %1 packages at once.</source>
        <translation>Tối đa %1 gói mỗi lần.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is longer than %2 characters.</source>
        <translation>&quot;%1&quot; dài hơn %2 ký tự.</translation>
    </message>
    <message>
        <source>&quot;%1&quot;: pip options are not allowed.</source>
        <translation>&quot;%1&quot;: không được dùng tùy chọn của pip.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; looks like a path or a URL: only package names and version constraints are allowed.</source>
        <translation>&quot;%1&quot; trông giống đường dẫn hoặc URL: chỉ được dùng tên gói và ràng buộc phiên bản.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a package name with optional version constraints (e.g. numpy, pandas&gt;=2,&lt;3).</source>
        <translation>&quot;%1&quot; không phải tên gói kèm ràng buộc phiên bản tùy chọn (ví dụ numpy, pandas&gt;=2,&lt;3).</translation>
    </message>
    <message>
        <source>Give the environment a name.</source>
        <translation>Hãy đặt tên cho môi trường.</translation>
    </message>
    <message>
        <source>A name is 1–80 letters, digits, spaces, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;, starting with a letter or digit.</source>
        <translation>Tên gồm 1–80 chữ cái, chữ số, dấu cách, &apos;.&apos;, &apos;_&apos; hoặc &apos;-&apos;, bắt đầu bằng chữ cái hoặc chữ số.</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentTableModel</name>
    <message>
        <source>%1 (%2, provisioner %3)</source>
        <translation>%1 (%2, bộ cung cấp %3)</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>chưa có</translation>
    </message>
    <message>
        <source>Revisions built so far: %1</source>
        <translation>Số bản sửa đổi đã dựng: %1</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Tên</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Ngôn ngữ</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Trạng thái</translation>
    </message>
    <message>
        <source>Current revision</source>
        <translation>Bản sửa đổi hiện tại</translation>
    </message>
    <message>
        <source>Last build failure</source>
        <translation>Lần dựng thất bại gần nhất</translation>
    </message>
</context>
<context>
    <name>runbox::console::EnvironmentsPage</name>
    <message>
        <source>Environments</source>
        <translation>Môi trường</translation>
    </message>
    <message>
        <source>&amp;New…</source>
        <translation>&amp;Mới…</translation>
    </message>
    <message>
        <source>&amp;Install packages…</source>
        <translation>&amp;Cài gói…</translation>
    </message>
    <message>
        <source>&amp;Uninstall packages…</source>
        <translation>&amp;Gỡ gói…</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>&amp;Xóa</translation>
    </message>
    <message>
        <source>R&amp;un in this environment…</source>
        <translation>C&amp;hạy trong môi trường này…</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>&amp;Làm mới</translation>
    </message>
    <message>
        <source>Create an environment (its first revision is a bare one)</source>
        <translation>Tạo môi trường (bản sửa đổi đầu tiên là môi trường trống)</translation>
    </message>
    <message>
        <source>Build a new revision with more packages</source>
        <translation>Dựng bản sửa đổi mới có thêm gói</translation>
    </message>
    <message>
        <source>Build a new revision without some packages</source>
        <translation>Dựng bản sửa đổi mới bỏ bớt một số gói</translation>
    </message>
    <message>
        <source>Delete the environment and every revision of it</source>
        <translation>Xóa môi trường và mọi bản sửa đổi của nó</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Revision</source>
        <translation>Bản sửa đổi</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Trạng thái</translation>
    </message>
    <message>
        <source>Packages</source>
        <translation>Gói</translation>
    </message>
    <message>
        <source>Built</source>
        <translation>Dựng xong</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Lý do</translation>
    </message>
    <message>
        <source>Package</source>
        <translation>Gói</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>Phiên bản</translation>
    </message>
    <message>
        <source>Revisions (newest first):</source>
        <translation>Các bản sửa đổi (mới nhất trước):</translation>
    </message>
    <message>
        <source>science environments</source>
        <translation>môi trường khoa học</translation>
    </message>
    <message>
        <source>Could not read the environments</source>
        <translation>Không đọc được các môi trường</translation>
    </message>
    <message>
        <source>Select an environment to see its revisions and packages.</source>
        <translation>Chọn một môi trường để xem các bản sửa đổi và gói của nó.</translation>
    </message>
    <message>
        <source>Could not read the revisions: %1</source>
        <translation>Không đọc được các bản sửa đổi: %1</translation>
    </message>
    <message>
        <source>%1 (current)</source>
        <translation>%1 (hiện tại)</translation>
    </message>
    <message>
        <source>%1 (files removed)</source>
        <translation>%1 (đã gỡ tệp)</translation>
    </message>
    <message>
        <source>(bare)</source>
        <translation>(trống)</translation>
    </message>
    <message>
        <source>Build execution: %1</source>
        <translation>Lần chạy dựng: %1</translation>
    </message>
    <message>
        <source>No revision yet.</source>
        <translation>Chưa có bản sửa đổi.</translation>
    </message>
    <message>
        <source>Revision %1 is building: its packages are listed once it is ready.</source>
        <translation>Bản sửa đổi %1 đang được dựng: các gói sẽ hiện khi nó sẵn sàng.</translation>
    </message>
    <message>
        <source>Revision %1 failed and has no packages: %2</source>
        <translation>Bản sửa đổi %1 thất bại và không có gói: %2</translation>
    </message>
    <message>
        <source>Reading the packages of %1…</source>
        <translation>Đang đọc các gói của %1…</translation>
    </message>
    <message>
        <source>Could not read the packages: %1</source>
        <translation>Không đọc được các gói: %1</translation>
    </message>
    <message>
        <source>Packages of %1 (%2 in all), SHA-256 %3</source>
        <translation>Các gói của %1 (tổng %2), SHA-256 %3</translation>
    </message>
    <message>
        <source>Delete environment</source>
        <translation>Xóa môi trường</translation>
    </message>
    <message>
        <source>Delete the environment %1 (%2) and all %3 of its revisions? Executions can no longer use it.</source>
        <translation>Xóa môi trường %1 (%2) cùng toàn bộ %3 bản sửa đổi? Các lần chạy sẽ không dùng được nó nữa.</translation>
    </message>
    <message>
        <source>Creating the environment %1…</source>
        <translation>Đang tạo môi trường %1…</translation>
    </message>
    <message>
        <source>Could not create %1: %2</source>
        <translation>Không tạo được %1: %2</translation>
    </message>
    <message>
        <source>This agent cannot uninstall packages yet (%1 is not there).</source>
        <translation>Agent này chưa gỡ được gói (không có %1).</translation>
    </message>
    <message>
        <source>Could not install: %1</source>
        <translation>Không cài được: %1</translation>
    </message>
    <message>
        <source>Could not uninstall: %1</source>
        <translation>Không gỡ được: %1</translation>
    </message>
    <message>
        <source>Building a new revision of %1 (execution %2)…</source>
        <translation>Đang dựng bản sửa đổi mới của %1 (lần chạy %2)…</translation>
    </message>
    <message>
        <source>Could not delete %1: %2</source>
        <translation>Không xóa được %1: %2</translation>
    </message>
    <message>
        <source>Environment %1 deleted.</source>
        <translation>Đã xóa môi trường %1.</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionFollower</name>
    <message>
        <source>Could not read the execution record: %1</source>
        <translation>Không đọc được bản ghi lần chạy: %1</translation>
    </message>
    <message>
        <source>Cancelled from the console (closing the stream of a sync execution makes the agent kill it).</source>
        <translation>Đã hủy từ console (đóng luồng của một lần chạy đồng bộ khiến agent dừng nó).</translation>
    </message>
    <message>
        <source>The agent refused the execution (HTTP %1): %2</source>
        <translation>Agent từ chối lần chạy (HTTP %1): %2</translation>
    </message>
    <message>
        <source>The connection to the agent broke before the execution ended (%1); a sync execution is killed when its client disconnects.</source>
        <translation>Kết nối tới agent bị đứt trước khi lần chạy kết thúc (%1); lần chạy đồng bộ bị dừng khi client ngắt kết nối.</translation>
    </message>
    <message>
        <source>stream closed</source>
        <translation>luồng đã đóng</translation>
    </message>
    <message>
        <source>The agent cannot stream this log (HTTP %1): %2</source>
        <translation>Agent không thể truyền nhật ký này (HTTP %1): %2</translation>
    </message>
    <message>
        <source>The agent does not know this execution: %1</source>
        <translation>Agent không biết lần chạy này: %1</translation>
    </message>
    <message>
        <source>the stream ended early</source>
        <translation>luồng kết thúc sớm</translation>
    </message>
    <message numerus="yes">
        <source>Log stream interrupted (%1); resuming at byte %2 in %n s.</source>
        <translation>
            <numerusform>Luồng nhật ký bị gián đoạn (%1); sẽ tiếp tục từ byte %2 sau %n giây.</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancel refused (HTTP %1): %2</source>
        <translation>Yêu cầu hủy bị từ chối (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Cancel requested; waiting for the execution to end.</source>
        <translation>Đã yêu cầu hủy; đang chờ lần chạy kết thúc.</translation>
    </message>
    <message>
        <source>The agent reported an error in the stream: %1</source>
        <translation>Agent báo lỗi trong luồng: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionInfo</name>
    <message>
        <source>Queued</source>
        <translation>Đang chờ</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Đang chạy</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>Hoàn tất</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Thất bại</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>Quá thời gian</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Đã hủy</translation>
    </message>
    <message>
        <source>Output limited</source>
        <translation>Vượt giới hạn đầu ra</translation>
    </message>
    <message>
        <source>Quota exceeded</source>
        <translation>Vượt hạn mức</translation>
    </message>
    <message>
        <source>Setup failed</source>
        <translation>Thiết lập thất bại</translation>
    </message>
    <message>
        <source>Lost</source>
        <translation>Bị mất</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Không rõ</translation>
    </message>
    <message>
        <source>Memory exceeded</source>
        <translation>Vượt quá bộ nhớ</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionLauncher</name>
    <message>
        <source>Not connected to an agent.</source>
        <translation>Chưa kết nối tới agent nào.</translation>
    </message>
    <message>
        <source>Creating a workspace…</source>
        <translation>Đang tạo workspace…</translation>
    </message>
    <message>
        <source>Could not create a workspace: %1</source>
        <translation>Không tạo được workspace: %1</translation>
    </message>
    <message>
        <source>The connection to the agent was closed.</source>
        <translation>Kết nối tới agent đã đóng.</translation>
    </message>
    <message>
        <source>Starting the execution…</source>
        <translation>Đang bắt đầu lần chạy…</translation>
    </message>
    <message>
        <source>The agent refused the execution (HTTP %1): %2</source>
        <translation>Agent từ chối lần chạy (HTTP %1): %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionTableModel</name>
    <message>
        <source>%1 (#%2)</source>
        <translation>%1 (thứ %2)</translation>
    </message>
    <message>
        <source>Execution</source>
        <translation>Lần chạy</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Workspace</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Loại</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Trạng thái</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Bắt đầu</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Thời lượng</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>Mã thoát</translation>
    </message>
    <message>
        <source>Chips</source>
        <translation>Chip</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionWindow</name>
    <message>
        <source>Execution</source>
        <translation>Lần chạy</translation>
    </message>
    <message>
        <source>Follow</source>
        <translation>Theo dõi</translation>
    </message>
    <message>
        <source>Keep the end of the log in view</source>
        <translation>Luôn hiển thị cuối nhật ký</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Tạm dừng</translation>
    </message>
    <message>
        <source>Hold new output aside (bounded) until resumed</source>
        <translation>Giữ lại đầu ra mới (có giới hạn) cho tới khi tiếp tục</translation>
    </message>
    <message>
        <source>Find…</source>
        <translation>Tìm…</translation>
    </message>
    <message>
        <source>Find in the log (Ctrl+F)</source>
        <translation>Tìm trong nhật ký (Ctrl+F)</translation>
    </message>
    <message>
        <source>Save log…</source>
        <translation>Lưu nhật ký…</translation>
    </message>
    <message>
        <source>Cancel run</source>
        <translation>Hủy lần chạy</translation>
    </message>
    <message>
        <source>Cancel this execution (Ctrl+.)</source>
        <translation>Hủy lần chạy này (Ctrl+.)</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>Trường</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Giá trị</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Thời gian</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Máy chủ</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Cổng</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>Quyết định</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Lý do</translation>
    </message>
    <message>
        <source>Bytes up</source>
        <translation>Byte gửi đi</translation>
    </message>
    <message>
        <source>Bytes down</source>
        <translation>Byte nhận về</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>Đầu ra</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Chi tiết</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>Truy cập ra ngoài</translation>
    </message>
    <message>
        <source>[… %1 bytes dropped by the agent&apos;s output retention …]</source>
        <translation>[… chính sách lưu đầu ra của agent đã bỏ %1 byte …]</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>workspace %1</source>
        <translation>workspace %1</translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation>mã thoát %1</translation>
    </message>
    <message>
        <source>signal %1</source>
        <translation>tín hiệu %1</translation>
    </message>
    <message>
        <source>chips %1</source>
        <translation>chip %1</translation>
    </message>
    <message>
        <source>sync stream</source>
        <translation>luồng đồng bộ</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>Tóm tắt</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Workspace</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Loại</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Trạng thái</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>Mã thoát</translation>
    </message>
    <message>
        <source>Signal</source>
        <translation>Tín hiệu</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Đã tạo</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Bắt đầu</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Kết thúc</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Thời lượng</translation>
    </message>
    <message>
        <source>Permission epoch</source>
        <translation>Kỷ nguyên quyền</translation>
    </message>
    <message>
        <source>(not reported)</source>
        <translation>(không được báo)</translation>
    </message>
    <message>
        <source>How it ran</source>
        <translation>Cách đã chạy</translation>
    </message>
    <message>
        <source>Working directory</source>
        <translation>Thư mục làm việc</translation>
    </message>
    <message>
        <source>/workspace</source>
        <translation>/workspace</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Lệnh</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>Môi trường</translation>
    </message>
    <message>
        <source>Changed files</source>
        <translation>Tệp thay đổi</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>Đã sửa</translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation>Đã xóa</translation>
    </message>
    <message>
        <source>allowed</source>
        <translation>cho phép</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>từ chối</translation>
    </message>
    <message>
        <source>This agent does not record egress decisions yet.</source>
        <translation>Agent này chưa ghi lại các quyết định truy cập ra ngoài.</translation>
    </message>
    <message>
        <source>No connection was attempted.</source>
        <translation>Không có kết nối nào được thử.</translation>
    </message>
    <message>
        <source>— %1</source>
        <translation>— %1</translation>
    </message>
    <message>
        <source>, exit code %1</source>
        <translation>, mã thoát %1</translation>
    </message>
    <message>
        <source>, after %1</source>
        <translation>, sau %1</translation>
    </message>
    <message>
        <source>: %1</source>
        <translation>: %1</translation>
    </message>
    <message>
        <source>Save log</source>
        <translation>Lưu nhật ký</translation>
    </message>
    <message>
        <source>Log files (*.log *.txt);;All files (*)</source>
        <translation>Tệp nhật ký (*.log *.txt);;Mọi tệp (*)</translation>
    </message>
    <message>
        <source>Could not save: %1</source>
        <translation>Không lưu được: %1</translation>
    </message>
    <message>
        <source>Saving the log…</source>
        <translation>Đang lưu nhật ký…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Hủy</translation>
    </message>
    <message>
        <source>Saving the log… %1</source>
        <translation>Đang lưu nhật ký… %1</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Đóng</translation>
    </message>
    <message>
        <source>This execution runs on a sync stream: closing the window closes the stream and the agent kills the execution. Close anyway?</source>
        <translation>Lần chạy này dùng luồng đồng bộ: đóng cửa sổ sẽ đóng luồng và agent sẽ dừng lần chạy. Vẫn đóng?</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>Bộ nhớ đỉnh</translation>
    </message>
    <message>
        <source>CPU (user)</source>
        <translation>CPU (người dùng)</translation>
    </message>
    <message>
        <source>CPU (system)</source>
        <translation>CPU (hệ thống)</translation>
    </message>
    <message>
        <source>Most processes</source>
        <translation>Số tiến trình tối đa</translation>
    </message>
    <message>
        <source>Usage</source>
        <translation>Mức sử dụng</translation>
    </message>
    <message>
        <source>(not measured)</source>
        <translation>(chưa đo)</translation>
    </message>
    <message>
        <source>environment %1</source>
        <translation>môi trường %1</translation>
    </message>
    <message>
        <source>Science environment</source>
        <translation>Môi trường khoa học</translation>
    </message>
    <message>
        <source>Environment revision</source>
        <translation>Bản sửa đổi môi trường</translation>
    </message>
</context>
<context>
    <name>runbox::console::ExecutionsPage</name>
    <message>
        <source>Executions</source>
        <translation>Các lần chạy</translation>
    </message>
    <message>
        <source>All states</source>
        <translation>Mọi trạng thái</translation>
    </message>
    <message>
        <source>All workspaces</source>
        <translation>Mọi workspace</translation>
    </message>
    <message>
        <source>Filter by id, workspace or kind (Ctrl+F)</source>
        <translation>Lọc theo id, workspace hoặc loại (Ctrl+F)</translation>
    </message>
    <message>
        <source>&amp;Live</source>
        <translation>T&amp;rực tiếp</translation>
    </message>
    <message>
        <source>Refresh the newest executions every few seconds</source>
        <translation>Làm mới các lần chạy mới nhất vài giây một lần</translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation>&amp;Chạy…</translation>
    </message>
    <message>
        <source>State:</source>
        <translation>Trạng thái:</translation>
    </message>
    <message>
        <source>Workspace:</source>
        <translation>Workspace:</translation>
    </message>
    <message>
        <source>managed executions</source>
        <translation>lần chạy được quản lý</translation>
    </message>
    <message>
        <source>Could not load executions: %1</source>
        <translation>Không tải được các lần chạy: %1</translation>
    </message>
    <message>
        <source>not connected</source>
        <translation>chưa kết nối</translation>
    </message>
    <message numerus="yes">
        <source>%n execution(s) loaded</source>
        <translation>
            <numerusform>Đã tải %n lần chạy</numerusform>
        </translation>
    </message>
    <message>
        <source> · loading…</source>
        <translation> · đang tải…</translation>
    </message>
    <message>
        <source> · scroll down for older ones</source>
        <translation> · cuộn xuống để xem các lần cũ hơn</translation>
    </message>
</context>
<context>
    <name>runbox::console::FileEntry</name>
    <message>
        <source>File</source>
        <translation>Tệp</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Thư mục</translation>
    </message>
    <message>
        <source>Link</source>
        <translation>Liên kết</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>Khác</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Không rõ</translation>
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
        <translation>%1 byte</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Tên</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Kích thước</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>Sửa đổi</translation>
    </message>
    <message>
        <source>Permissions</source>
        <translation>Quyền</translation>
    </message>
</context>
<context>
    <name>runbox::console::FilePreview</name>
    <message>
        <source>Select a text file of at most %1 to preview it.</source>
        <translation>Chọn một tệp văn bản tối đa %1 để xem trước.</translation>
    </message>
    <message>
        <source>%1 is a link to %2: the console never follows links.</source>
        <translation>%1 là liên kết tới %2: bảng điều khiển không bao giờ đi theo liên kết.</translation>
    </message>
    <message>
        <source>%1 is not a regular file.</source>
        <translation>%1 không phải tệp thông thường.</translation>
    </message>
    <message>
        <source>%1 is larger than %2: download it to read it.</source>
        <translation>%1 lớn hơn %2: hãy tải xuống để đọc.</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Not connected.</source>
        <translation>Chưa kết nối.</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>Đang đọc %1…</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>Không thể đọc %1: %2</translation>
    </message>
    <message>
        <source>%1 is not text.</source>
        <translation>%1 không phải văn bản.</translation>
    </message>
    <message>
        <source>%1 is not UTF-8 text.</source>
        <translation>%1 không phải văn bản UTF-8.</translation>
    </message>
</context>
<context>
    <name>runbox::console::FileTransfer</name>
    <message>
        <source>not connected</source>
        <translation>chưa kết nối</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>không thể đọc %1: %2</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>không thể ghi %1: %2</translation>
    </message>
    <message>
        <source>the connection was closed</source>
        <translation>kết nối đã đóng</translation>
    </message>
    <message>
        <source>%1 is a folder: only files are downloaded</source>
        <translation>%1 là thư mục: chỉ tải xuống được tệp</translation>
    </message>
    <message>
        <source>the download ended after %1 of %2 bytes</source>
        <translation>tải xuống dừng sau %1 trên %2 byte</translation>
    </message>
</context>
<context>
    <name>runbox::console::FilesPage</name>
    <message>
        <source>Files</source>
        <translation>Tệp</translation>
    </message>
    <message>
        <source>The workspace whose files are shown</source>
        <translation>Workspace có các tệp đang hiển thị</translation>
    </message>
    <message>
        <source>&amp;Up</source>
        <translation>&amp;Lên trên</translation>
    </message>
    <message>
        <source>New &amp;folder…</source>
        <translation>Thư mục &amp;mới…</translation>
    </message>
    <message>
        <source>&amp;Upload…</source>
        <translation>&amp;Tải lên…</translation>
    </message>
    <message>
        <source>Do&amp;wnload…</source>
        <translation>Tải &amp;xuống…</translation>
    </message>
    <message>
        <source>Re&amp;name / move…</source>
        <translation>Đổi tê&amp;n / di chuyển…</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>&amp;Xóa…</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>&amp;Làm mới</translation>
    </message>
    <message>
        <source>Show the parent folder</source>
        <translation>Hiển thị thư mục cha</translation>
    </message>
    <message>
        <source>Upload a file into this folder</source>
        <translation>Tải một tệp lên thư mục này</translation>
    </message>
    <message>
        <source>Save the selected file on this computer</source>
        <translation>Lưu tệp đã chọn vào máy tính này</translation>
    </message>
    <message>
        <source>Delete the selected files and folders</source>
        <translation>Xóa các tệp và thư mục đã chọn</translation>
    </message>
    <message>
        <source>Workspace:</source>
        <translation>Workspace:</translation>
    </message>
    <message>
        <source>workspaces</source>
        <translation>workspace</translation>
    </message>
    <message>
        <source>Could not read the workspaces: %1</source>
        <translation>Không thể đọc danh sách workspace: %1</translation>
    </message>
    <message>
        <source>%1:/%2</source>
        <translation>%1:/%2</translation>
    </message>
    <message>
        <source>Could not list %1: %2</source>
        <translation>Không thể liệt kê %1: %2</translation>
    </message>
    <message>
        <source>Could not make folder %1: %2</source>
        <translation>Không thể tạo thư mục %1: %2</translation>
    </message>
    <message>
        <source>Folder %1 made.</source>
        <translation>Đã tạo thư mục %1.</translation>
    </message>
    <message>
        <source>Could not move %1 to %2: %3</source>
        <translation>Không thể chuyển %1 tới %2: %3</translation>
    </message>
    <message>
        <source>%1 moved to %2.</source>
        <translation>Đã chuyển %1 tới %2.</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) not deleted:</source>
        <translation>
            <numerusform>%n mục chưa xóa:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) deleted.</source>
        <translation>
            <numerusform>Đã xóa %n mục.</numerusform>
        </translation>
    </message>
    <message>
        <source>New folder</source>
        <translation>Thư mục mới</translation>
    </message>
    <message>
        <source>Name of the new folder in %1:</source>
        <translation>Tên thư mục mới trong %1:</translation>
    </message>
    <message>
        <source>Rename or move</source>
        <translation>Đổi tên hoặc di chuyển</translation>
    </message>
    <message>
        <source>New path of %1 in the workspace:</source>
        <translation>Đường dẫn mới của %1 trong workspace:</translation>
    </message>
    <message>
        <source>Delete files</source>
        <translation>Xóa tệp</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n item(s)? Folders are deleted with everything in them. This cannot be undone.</source>
        <translation>
            <numerusform>Xóa %n mục? Thư mục sẽ bị xóa cùng mọi thứ bên trong. Không thể hoàn tác.</numerusform>
        </translation>
    </message>
    <message>
        <source>Upload a file</source>
        <translation>Tải lên một tệp</translation>
    </message>
    <message>
        <source>Save %1 as</source>
        <translation>Lưu %1 thành</translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetHost</name>
    <message>
        <source>The connection was closed.</source>
        <translation>Kết nối đã đóng.</translation>
    </message>
    <message>
        <source>Reading the chips…</source>
        <translation>Đang đọc các chip…</translation>
    </message>
    <message>
        <source>Disconnected</source>
        <translation>Đã ngắt kết nối</translation>
    </message>
    <message>
        <source>Unreachable (%1): no chips can be chosen.</source>
        <translation>Không kết nối được (%1): không thể chọn chip nào.</translation>
    </message>
    <message>
        <source>Unreachable (%1): %2</source>
        <translation>Không kết nối được (%1): %2</translation>
    </message>
    <message>
        <source>This agent does not offer GET /v1/npu/chips yet.</source>
        <translation>Agent này chưa cung cấp GET /v1/npu/chips.</translation>
    </message>
    <message>
        <source>Could not read the chips: %1</source>
        <translation>Không đọc được các chip: %1</translation>
    </message>
    <message>
        <source>No NPU on this host.</source>
        <translation>Máy chủ này không có NPU.</translation>
    </message>
    <message>
        <source>No NPU on this host: %1</source>
        <translation>Máy chủ này không có NPU: %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n chip(s) usable</source>
        <translation>
            <numerusform>%1 trên %n chip dùng được</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n in use</source>
        <translation>
            <numerusform>%1 · %n đang dùng</numerusform>
        </translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Đang kết nối…</translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetHostSection</name>
    <message numerus="yes">
        <source>Run on this host with %n chip(s)…</source>
        <translation>
            <numerusform>Chạy trên máy chủ này với %n chip…</numerusform>
        </translation>
    </message>
    <message>
        <source>Run on this host with selected chips…</source>
        <translation>Chạy trên máy chủ này với các chip đã chọn…</translation>
    </message>
</context>
<context>
    <name>runbox::console::FleetPage</name>
    <message>
        <source>No agent is connected. Connect agents in the list on the left; their chips appear here, grouped by host.</source>
        <translation>Chưa kết nối agent nào. Hãy kết nối các agent trong danh sách bên trái; chip của chúng sẽ hiện ở đây, nhóm theo máy chủ.</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Làm mới</translation>
    </message>
    <message numerus="yes">
        <source>Read every host&apos;s chips again (they are also read every %n second(s))</source>
        <translation>
            <numerusform>Đọc lại chip của mọi máy chủ (chúng cũng được đọc mỗi %n giây)</numerusform>
        </translation>
    </message>
    <message>
        <source>Fleet</source>
        <translation>Đội máy</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n host(s) reachable</source>
        <translation>
            <numerusform>%1 trên %n máy chủ kết nối được</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n chip(s) usable</source>
        <translation>
            <numerusform>%1 trên %n chip dùng được</numerusform>
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
        <translation>%1 giây</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 phút %2 giây</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 giờ %2 phút</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 ngày %2 giờ</translation>
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
        <translation>Chưa rõ</translation>
    </message>
    <message>
        <source>Unusable: executions are refused</source>
        <translation>Không dùng được: mọi lần chạy đều bị từ chối</translation>
    </message>
    <message>
        <source>Sound</source>
        <translation>An toàn</translation>
    </message>
    <message numerus="yes">
        <source>Sound, with %n warning(s)</source>
        <translation>
            <numerusform>An toàn, có %n cảnh báo</numerusform>
        </translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>Sandbox</translation>
    </message>
    <message>
        <source>Unusable</source>
        <translation>Không dùng được</translation>
    </message>
    <message>
        <source>No sandbox can be built, so the agent runs nothing (it never falls back to running code unsandboxed). %1</source>
        <translation>Không thể dựng sandbox nên agent không chạy gì cả (nó không bao giờ chạy mã ngoài sandbox). %1</translation>
    </message>
    <message>
        <source>bubblewrap</source>
        <translation>bubblewrap</translation>
    </message>
    <message>
        <source>version unknown</source>
        <translation>không rõ phiên bản</translation>
    </message>
    <message>
        <source>Every execution is a fresh bubblewrap sandbox (%1).</source>
        <translation>Mỗi lần chạy là một sandbox bubblewrap mới (%1).</translation>
    </message>
    <message>
        <source>/proc</source>
        <translation>/proc</translation>
    </message>
    <message>
        <source>bound from the host</source>
        <translation>gắn từ máy chủ</translation>
    </message>
    <message>
        <source>The kernel refused a fresh /proc, so the host&apos;s /proc is bound read-only: code in a sandbox can see the host&apos;s process list and command lines. Cause: %1</source>
        <translation>Nhân hệ điều hành từ chối /proc mới nên /proc của máy chủ được gắn chỉ đọc: mã trong sandbox thấy được danh sách tiến trình và dòng lệnh của máy chủ. Nguyên nhân: %1</translation>
    </message>
    <message>
        <source>own PID namespace</source>
        <translation>không gian PID riêng</translation>
    </message>
    <message>
        <source>Each sandbox sees only its own processes.</source>
        <translation>Mỗi sandbox chỉ thấy tiến trình của chính nó.</translation>
    </message>
    <message>
        <source>Nested user namespaces</source>
        <translation>Không gian người dùng lồng nhau</translation>
    </message>
    <message>
        <source>blocked</source>
        <translation>đã chặn</translation>
    </message>
    <message>
        <source>bubblewrap&apos;s --disable-userns stops sandboxed code from creating user namespaces of its own.</source>
        <translation>Tùy chọn --disable-userns của bubblewrap ngăn mã trong sandbox tạo không gian người dùng riêng.</translation>
    </message>
    <message>
        <source>not blocked by bubblewrap</source>
        <translation>bubblewrap không chặn</translation>
    </message>
    <message>
        <source>This bubblewrap is older than 0.8 and has no --disable-userns; only the seccomp filter stops sandboxed code from creating namespaces. Upgrade bubblewrap to restore the second layer.</source>
        <translation>Bản bubblewrap này cũ hơn 0.8, không có --disable-userns; chỉ còn bộ lọc seccomp ngăn mã trong sandbox tạo namespace. Hãy nâng cấp bubblewrap để có lại lớp bảo vệ thứ hai.</translation>
    </message>
    <message>
        <source>The kernel refused --disable-userns (for example a read-only /proc/sys inside a container); only the seccomp filter stops sandboxed code from creating namespaces.</source>
        <translation>Nhân hệ điều hành từ chối --disable-userns (ví dụ /proc/sys chỉ đọc trong container); chỉ còn bộ lọc seccomp ngăn mã trong sandbox tạo namespace.</translation>
    </message>
    <message>
        <source>seccomp</source>
        <translation>seccomp</translation>
    </message>
    <message>
        <source>filter unavailable</source>
        <translation>không có bộ lọc</translation>
    </message>
    <message>
        <source>A syscall filter for %1 is loaded into every sandbox; denied calls fail with %2.</source>
        <translation>Mỗi sandbox nạp một bộ lọc syscall cho %1; lời gọi bị chặn trả về lỗi %2.</translation>
    </message>
    <message>
        <source>architecture not reported</source>
        <translation>không báo kiến trúc</translation>
    </message>
    <message>
        <source>The agent did not say which syscall filter it loads.</source>
        <translation>Agent không cho biết nó nạp bộ lọc syscall nào.</translation>
    </message>
    <message>
        <source>Landlock</source>
        <translation>Landlock</translation>
    </message>
    <message>
        <source>not reported by this agent</source>
        <translation>agent này không báo</translation>
    </message>
    <message>
        <source>Landlock confines light workspaces; this agent does not report its ABI.</source>
        <translation>Landlock giới hạn các workspace nhẹ; agent này không báo ABI của nó.</translation>
    </message>
    <message>
        <source>unavailable</source>
        <translation>không khả dụng</translation>
    </message>
    <message>
        <source>The kernel has no Landlock: light workspaces cannot be confined and are refused.</source>
        <translation>Nhân hệ điều hành không có Landlock: workspace nhẹ không thể bị giới hạn nên bị từ chối.</translation>
    </message>
    <message>
        <source>ABI %1</source>
        <translation>ABI %1</translation>
    </message>
    <message>
        <source>Light workspaces are confined to their home by a Landlock ruleset.</source>
        <translation>Mỗi workspace nhẹ bị một bộ quy tắc Landlock giới hạn trong thư mục home của nó.</translation>
    </message>
    <message>
        <source>Agent warning</source>
        <translation>Cảnh báo từ agent</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>Truy cập ra ngoài</translation>
    </message>
    <message>
        <source>This agent does not offer egress through the gateway yet: sandboxes have no network at all.</source>
        <translation>Agent này chưa cung cấp truy cập ra ngoài qua gateway: sandbox hoàn toàn không có mạng.</translation>
    </message>
    <message>
        <source>available</source>
        <translation>khả dụng</translation>
    </message>
    <message>
        <source>Sandboxes reach allowed domains through the gateway when the network policy allows them.</source>
        <translation>Sandbox truy cập được các tên miền cho phép qua gateway khi chính sách mạng cho phép.</translation>
    </message>
    <message>
        <source>The agent gave no reason.</source>
        <translation>Agent không nêu lý do.</translation>
    </message>
    <message>
        <source>Light workspaces</source>
        <translation>Workspace nhẹ</translation>
    </message>
    <message>
        <source>Memory bounds</source>
        <translation>Giới hạn bộ nhớ</translation>
    </message>
    <message>
        <source>cgroup v2</source>
        <translation>cgroup v2</translation>
    </message>
    <message>
        <source>Each execution has its own cgroup; the kernel enforces its memory and process limits. %1</source>
        <translation>Mỗi lần thực thi có cgroup riêng; nhân hệ điều hành áp đặt giới hạn bộ nhớ và tiến trình của nó. %1</translation>
    </message>
    <message>
        <source>watchdog</source>
        <translation>bộ giám sát</translation>
    </message>
    <message>
        <source>No delegated cgroup: the agent samples each execution&apos;s memory and ends it as memory_exceeded past its limit; %1. %2</source>
        <translation>Không có cgroup được ủy quyền: agent lấy mẫu bộ nhớ của từng lần thực thi và kết thúc nó với trạng thái memory_exceeded khi vượt giới hạn; %1. %2</translation>
    </message>
    <message>
        <source>none</source>
        <translation>không có</translation>
    </message>
    <message>
        <source>Executions with a memory limit are refused (503 limit_unenforceable). %1</source>
        <translation>Các lần thực thi có giới hạn bộ nhớ bị từ chối (503 limit_unenforceable). %1</translation>
    </message>
    <message>
        <source>CPU limit</source>
        <translation>Giới hạn CPU</translation>
    </message>
    <message>
        <source>cgroup v2 cpu.max</source>
        <translation>cgroup v2 cpu.max</translation>
    </message>
    <message>
        <source>not enforceable here</source>
        <translation>không thể áp đặt ở đây</translation>
    </message>
    <message>
        <source>Leave &quot;CPU per execution&quot; unlimited on this host: executions under a limit are refused. %1</source>
        <translation>Hãy để “CPU mỗi lần thực thi” không giới hạn trên máy này: các lần thực thi có giới hạn bị từ chối. %1</translation>
    </message>
    <message>
        <source>Pool %1: %2 workspaces, capacity %3, %4 free</source>
        <translation>Pool %1: %2 không gian làm việc, dung lượng %3, còn trống %4</translation>
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
        <translation>Chưa chọn agent</translation>
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
        <translation>Ngôn ngữ hệ thống</translation>
    </message>
</context>
<context>
    <name>runbox::console::LogDownloader</name>
    <message>
        <source>Not connected.</source>
        <translation>Chưa kết nối.</translation>
    </message>
    <message>
        <source>
[… %1 bytes dropped by retention …]
</source>
        <translation>
[… chính sách lưu giữ đã bỏ %1 byte …]
</translation>
    </message>
    <message>
        <source>The agent did not send the log (HTTP %1): %2</source>
        <translation>Agent không gửi nhật ký (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Đã hủy.</translation>
    </message>
</context>
<context>
    <name>runbox::console::LogView</name>
    <message>
        <source>Match case</source>
        <translation>Phân biệt hoa thường</translation>
    </message>
    <message>
        <source>No output yet.</source>
        <translation>Chưa có đầu ra.</translation>
    </message>
    <message>
        <source>Find:</source>
        <translation>Tìm:</translation>
    </message>
    <message>
        <source>Text in the log</source>
        <translation>Chữ trong nhật ký</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>Kết quả trước (Shift+Enter)</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>Kết quả tiếp (Enter)</translation>
    </message>
    <message>
        <source>Close the find bar (Esc)</source>
        <translation>Đóng thanh tìm kiếm (Esc)</translation>
    </message>
    <message>
        <source>Only the latest %1 characters are shown; %2 earlier characters were dropped from the view. Save the log to get all of it.</source>
        <translation>Chỉ hiển thị %1 ký tự mới nhất; %2 ký tự cũ hơn đã bị bỏ khỏi khung xem. Hãy lưu nhật ký để có toàn bộ.</translation>
    </message>
    <message>
        <source>Not found</source>
        <translation>Không tìm thấy</translation>
    </message>
</context>
<context>
    <name>runbox::console::MainWindow</name>
    <message>
        <source>Runbox Console</source>
        <translation>Runbox Console</translation>
    </message>
    <message>
        <source>Agents</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>Double-click an agent to connect. Several can be connected at once; the pages show the selected one.</source>
        <translation>Nhấp đúp vào một agent để kết nối. Có thể kết nối nhiều agent cùng lúc; các trang hiển thị agent đang chọn.</translation>
    </message>
    <message>
        <source>&amp;Add agent…</source>
        <translation>&amp;Thêm agent…</translation>
    </message>
    <message>
        <source>&amp;Edit agent…</source>
        <translation>&amp;Sửa agent…</translation>
    </message>
    <message>
        <source>&amp;Remove agent</source>
        <translation>&amp;Xóa agent</translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation>&amp;Kết nối</translation>
    </message>
    <message>
        <source>&amp;Disconnect</source>
        <translation>&amp;Ngắt kết nối</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>T&amp;hoát</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Làm mới</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>&amp;Tìm…</translation>
    </message>
    <message>
        <source>&amp;New run…</source>
        <translation>Lần chạy &amp;mới…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Cài đặt…</translation>
    </message>
    <message>
        <source>&amp;About Runbox Console</source>
        <translation>&amp;Giới thiệu Runbox Console</translation>
    </message>
    <message>
        <source>&amp;Agent</source>
        <translation>&amp;Agent</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Xem</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Chạy</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>Cài đặ&amp;t</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>Trợ &amp;giúp</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Chính</translation>
    </message>
    <message>
        <source>Connect to an agent first.</source>
        <translation>Hãy kết nối tới một agent trước.</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Chạy</translation>
    </message>
    <message>
        <source>Execution started.</source>
        <translation>Lần chạy đã bắt đầu.</translation>
    </message>
    <message>
        <source>Execution started on a sync stream (this agent has no managed executions yet): keep its window open while it runs.</source>
        <translation>Lần chạy đã bắt đầu trên luồng đồng bộ (agent này chưa có lần chạy được quản lý): hãy giữ cửa sổ mở trong khi chạy.</translation>
    </message>
    <message>
        <source>The new language applies when the console restarts.</source>
        <translation>Ngôn ngữ mới sẽ áp dụng khi khởi động lại console.</translation>
    </message>
    <message>
        <source>About Runbox Console</source>
        <translation>Giới thiệu Runbox Console</translation>
    </message>
    <message>
        <source>Tokens: system keychain</source>
        <translation>Token: chuỗi khóa hệ thống</translation>
    </message>
    <message>
        <source>Tokens: this session only</source>
        <translation>Token: chỉ phiên này</translation>
    </message>
    <message>
        <source>Run on %1</source>
        <translation>Chạy trên %1</translation>
    </message>
    <message>
        <source>The agent went away before the run started.</source>
        <translation>Agent đã mất kết nối trước khi lượt chạy bắt đầu.</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Runbox Console %1&lt;/h3&gt;&lt;p&gt;The operators&apos; desktop console for Runbox agents: sandbox health, quotas, network policy, Ascend NPUs, executions and science environments.&lt;/p&gt;&lt;p&gt;Shortcuts: F5 refresh · Ctrl+F find · Ctrl+R new run · Ctrl+. cancel a run · Ctrl+1…9 pages.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Runbox Console %1&lt;/h3&gt;&lt;p&gt;Console máy tính dành cho người vận hành agent Runbox: tình trạng sandbox, hạn mức, chính sách mạng, NPU Ascend, các lần chạy và môi trường khoa học.&lt;/p&gt;&lt;p&gt;Phím tắt: F5 làm mới · Ctrl+F tìm · Ctrl+R lần chạy mới · Ctrl+. hủy lần chạy · Ctrl+1…9 chuyển trang.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>runbox::console::NetworkPolicyPage</name>
    <message>
        <source>Network policy</source>
        <translation>Chính sách mạng</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Chế độ</translation>
    </message>
    <message>
        <source>&amp;None — sandboxes have no network at all</source>
        <translation>&amp;Không — sandbox hoàn toàn không có mạng</translation>
    </message>
    <message>
        <source>&amp;Domain allowlist — only the names below, through the egress gateway</source>
        <translation>Danh sách tên miền &amp;cho phép — chỉ các tên bên dưới, qua gateway ra ngoài</translation>
    </message>
    <message>
        <source>Allowed domains</source>
        <translation>Tên miền được phép</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>Thêm</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Sửa</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Xóa</translation>
    </message>
    <message>
        <source>Paste lines…</source>
        <translation>Dán nhiều dòng…</translation>
    </message>
    <message>
        <source>host, *.host (subdomains at any depth), host:port, *.host:port. IP addresses are never allowed.</source>
        <translation>host, *.host (tên miền con ở mọi cấp), host:cổng, *.host:cổng. Không bao giờ cho phép địa chỉ IP.</translation>
    </message>
    <message>
        <source>Private networks allowed (CIDR)</source>
        <translation>Mạng riêng được phép (CIDR)</translation>
    </message>
    <message>
        <source>Empty by default. The explicit door to an internal mirror: the gateway refuses private, loopback and link-local addresses unless they are inside one of these.</source>
        <translation>Mặc định để trống. Đây là lối vào tường minh tới một mirror nội bộ: gateway từ chối địa chỉ riêng, loopback và link-local trừ khi chúng nằm trong một dải ở đây.</translation>
    </message>
    <message>
        <source>Would this host be allowed?</source>
        <translation>Máy chủ này có được phép không?</translation>
    </message>
    <message>
        <source>e.g. files.pythonhosted.org:443</source>
        <translation>ví dụ files.pythonhosted.org:443</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>Á&amp;p dụng</translation>
    </message>
    <message>
        <source>&amp;Revert</source>
        <translation>&amp;Hoàn tác</translation>
    </message>
    <message>
        <source>network policies</source>
        <translation>chính sách mạng</translation>
    </message>
    <message>
        <source>Could not read the network policy</source>
        <translation>Không đọc được chính sách mạng</translation>
    </message>
    <message>
        <source>Current revision: %1</source>
        <translation>Phiên bản hiện tại: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies).</source>
        <translation>
            <numerusform>%n mục.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies), %1 refused — hover a marked entry to see why.</source>
        <translation>
            <numerusform>%n mục, %1 bị từ chối — di chuột lên mục được đánh dấu để xem lý do.</numerusform>
        </translation>
    </message>
    <message>
        <source>Type a host name to check it against the policy as edited.</source>
        <translation>Nhập tên máy chủ để kiểm tra theo chính sách đang sửa.</translation>
    </message>
    <message>
        <source>Refused: mode None allows no network at all.</source>
        <translation>Bị từ chối: chế độ Không không cho phép mạng nào.</translation>
    </message>
    <message>
        <source>Allowed on port %1 only, by %2.</source>
        <translation>Chỉ được phép ở cổng %1, theo %2.</translation>
    </message>
    <message>
        <source>Allowed by %1 (if it resolves to a public address or to one inside the private networks).</source>
        <translation>Được phép theo %1 (nếu phân giải ra địa chỉ công cộng hoặc địa chỉ trong các mạng riêng).</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>Bị từ chối: %1</translation>
    </message>
    <message>
        <source>Refused: no domain is allowed.</source>
        <translation>Bị từ chối: không tên miền nào được phép.</translation>
    </message>
    <message>
        <source>Refused: no entry matches %1.</source>
        <translation>Bị từ chối: không mục nào khớp %1.</translation>
    </message>
    <message>
        <source>Paste domains</source>
        <translation>Dán tên miền</translation>
    </message>
    <message>
        <source>One entry per line (commas and spaces also separate entries; lines starting with # are ignored).</source>
        <translation>Mỗi dòng một mục (dấu phẩy và khoảng trắng cũng phân tách các mục; dòng bắt đầu bằng # bị bỏ qua).</translation>
    </message>
    <message>
        <source>Add entries</source>
        <translation>Thêm các mục</translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y/ies) added.</source>
        <translation>
            <numerusform>Đã thêm %n mục.</numerusform>
        </translation>
    </message>
    <message>
        <source>Fix or remove the marked entries first.</source>
        <translation>Hãy sửa hoặc xóa các mục được đánh dấu trước.</translation>
    </message>
    <message>
        <source>A domain allowlist needs at least one entry.</source>
        <translation>Danh sách tên miền cho phép cần ít nhất một mục.</translation>
    </message>
    <message>
        <source>The agent refused the policy (HTTP %1): %2</source>
        <translation>Agent từ chối chính sách (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Network policy applied: %1</source>
        <translation>Đã áp dụng chính sách mạng: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::NewEnvironmentDialog</name>
    <message>
        <source>New environment</source>
        <translation>Môi trường mới</translation>
    </message>
    <message>
        <source>e.g. analysis-2026</source>
        <translation>ví dụ analysis-2026</translation>
    </message>
    <message>
        <source>Not available on this agent: %1</source>
        <translation>Không có trên agent này: %1</translation>
    </message>
    <message>
        <source>The first revision is a bare environment; install packages into it afterwards. Its build log opens in a window of its own.</source>
        <translation>Bản sửa đổi đầu tiên là môi trường trống; hãy cài gói vào sau. Nhật ký dựng mở trong một cửa sổ riêng.</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Tên:</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Ngôn ngữ:</translation>
    </message>
    <message>
        <source>&amp;Create</source>
        <translation>T&amp;ạo</translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuChip</name>
    <message>
        <source>%1 is not supported: only the Ascend 910 series can be selected.</source>
        <translation>%1 không được hỗ trợ: chỉ chọn được dòng Ascend 910.</translation>
    </message>
    <message>
        <source>This chip</source>
        <translation>Chip này</translation>
    </message>
    <message>
        <source>The probe sandbox could not use this chip.</source>
        <translation>Sandbox thăm dò không dùng được chip này.</translation>
    </message>
    <message>
        <source>execution %1</source>
        <translation>lần thực thi %1</translation>
    </message>
    <message>
        <source>broker job %1</source>
        <translation>tác vụ broker %1</translation>
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
        <translation>Chip %1 (NPU %2, die %3): %4</translation>
    </message>
    <message>
        <source>unknown model</source>
        <translation>không rõ mẫu</translation>
    </message>
    <message>
        <source>Probe: usable</source>
        <translation>Thăm dò: dùng được</translation>
    </message>
    <message>
        <source>In use now by a run or job on this agent.</source>
        <translation>Đang được một lượt chạy hoặc tác vụ trên agent này sử dụng.</translation>
    </message>
    <message>
        <source>In use now by %1.</source>
        <translation>Hiện đang được %1 dùng.</translation>
    </message>
</context>
<context>
    <name>runbox::console::NpuPage</name>
    <message>
        <source>NPU chips</source>
        <translation>Chip NPU</translation>
    </message>
    <message>
        <source>Re-&amp;probe</source>
        <translation>Thăm &amp;dò lại</translation>
    </message>
    <message>
        <source>Probe every chip again in a one-shot sandbox (may take a while)</source>
        <translation>Thăm dò lại từng chip trong một sandbox dùng một lần (có thể mất một lúc)</translation>
    </message>
    <message>
        <source>Select all usable</source>
        <translation>Chọn mọi chip dùng được</translation>
    </message>
    <message>
        <source>Clear selection</source>
        <translation>Bỏ chọn</translation>
    </message>
    <message>
        <source>&amp;Run with selected chips…</source>
        <translation>&amp;Chạy với các chip đã chọn…</translation>
    </message>
    <message>
        <source>Probing every chip in a one-shot sandbox…</source>
        <translation>Đang thăm dò từng chip trong sandbox dùng một lần…</translation>
    </message>
    <message>
        <source>Ascend NPUs</source>
        <translation>NPU Ascend</translation>
    </message>
    <message>
        <source>Could not read the chips</source>
        <translation>Không đọc được danh sách chip</translation>
    </message>
    <message>
        <source>Chips probed again.</source>
        <translation>Đã thăm dò lại các chip.</translation>
    </message>
    <message>
        <source>No NPU on this host</source>
        <translation>Máy chủ này không có NPU</translation>
    </message>
    <message>
        <source>The agent found no Ascend chip.</source>
        <translation>Agent không tìm thấy chip Ascend nào.</translation>
    </message>
    <message>
        <source>%1 of %2 chips usable · source: %3 · read %4</source>
        <translation>%1/%2 chip dùng được · nguồn: %3 · đọc lúc %4</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>không rõ</translation>
    </message>
    <message>
        <source>Click a usable chip to select it; hover a chip to see its details.</source>
        <translation>Nhấp vào chip dùng được để chọn; di chuột lên chip để xem chi tiết.</translation>
    </message>
    <message>
        <source>Chip %1 — %2, NPU %3 die %4, health %5</source>
        <translation>Chip %1 — %2, NPU %3 die %4, tình trạng %5</translation>
    </message>
    <message>
        <source>unknown model</source>
        <translation>không rõ mẫu</translation>
    </message>
    <message>
        <source>, %1 W</source>
        <translation>, %1 W</translation>
    </message>
    <message>
        <source>Usable: the last probe could open it inside a sandbox.</source>
        <translation>Dùng được: lần thăm dò gần nhất mở được nó trong sandbox.</translation>
    </message>
    <message>
        <source>Not usable: %1</source>
        <translation>Không dùng được: %1</translation>
    </message>
    <message numerus="yes">
        <source>&amp;Run with %n selected chip(s)…</source>
        <translation>
            <numerusform>&amp;Chạy với %n chip đã chọn…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>runbox::console::OverviewPage</name>
    <message>
        <source>Overview</source>
        <translation>Tổng quan</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>Sandbox</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>Truy cập ra ngoài</translation>
    </message>
    <message>
        <source>Executions</source>
        <translation>Các lần chạy</translation>
    </message>
    <message>
        <source>NPU chips</source>
        <translation>Chip NPU</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>Workspace</translation>
    </message>
    <message>
        <source>Sandbox conclusion</source>
        <translation>Kết luận về sandbox</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>không rõ</translation>
    </message>
    <message>
        <source>Runbox %1</source>
        <translation>Runbox %1</translation>
    </message>
    <message>
        <source>Protocol %1 · up %2</source>
        <translation>Giao thức %1 · đã chạy %2</translation>
    </message>
    <message>
        <source>Clock offset to this host: %1 (compensated)</source>
        <translation>Lệch đồng hồ với máy chủ này: %1 (đã bù)</translation>
    </message>
    <message>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <source>%1 on disk</source>
        <translation>%1 trên đĩa</translation>
    </message>
    <message>
        <source>Disk use not reported by this agent</source>
        <translation>Agent này không báo dung lượng đĩa</translation>
    </message>
    <message>
        <source>%1 running</source>
        <translation>%1 đang chạy</translation>
    </message>
    <message>
        <source>%1 queued</source>
        <translation>%1 đang chờ</translation>
    </message>
    <message>
        <source>Default timeout %1</source>
        <translation>Thời gian chờ mặc định %1</translation>
    </message>
    <message>
        <source>output kept up to %1</source>
        <translation>giữ đầu ra tối đa %1</translation>
    </message>
    <message>
        <source>languages: %1</source>
        <translation>ngôn ngữ: %1</translation>
    </message>
    <message>
        <source>Managed executions are not offered by this agent yet.</source>
        <translation>Agent này chưa hỗ trợ lần chạy được quản lý.</translation>
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
        <translation>Agent này chưa hỗ trợ NPU Ascend.</translation>
    </message>
    <message>
        <source>none</source>
        <translation>không có</translation>
    </message>
    <message>
        <source>No NPU on this host.</source>
        <translation>Máy chủ này không có NPU.</translation>
    </message>
    <message>
        <source>%1 of %2 usable</source>
        <translation>%1/%2 dùng được</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>Nguồn: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::PackagesDialog</name>
    <message>
        <source>Install packages into %1</source>
        <translation>Cài gói vào %1</translation>
    </message>
    <message>
        <source>Uninstall packages from %1</source>
        <translation>Gỡ gói khỏi %1</translation>
    </message>
    <message>
        <source>Packages to install, one per line or separated by spaces, with optional version constraints (numpy, pandas&gt;=2,&lt;3). A new revision is built with the packages of the current one plus these; running executions keep theirs.</source>
        <translation>Các gói cần cài, mỗi dòng một gói hoặc cách nhau bằng dấu cách, có thể kèm ràng buộc phiên bản (numpy, pandas&gt;=2,&lt;3). Một bản sửa đổi mới được dựng từ các gói của bản hiện tại cộng thêm các gói này; các lần chạy đang chạy giữ nguyên môi trường của chúng.</translation>
    </message>
    <message>
        <source>Packages to remove, one per line or separated by spaces. A new revision is built without them; running executions keep theirs.</source>
        <translation>Các gói cần gỡ, mỗi dòng một gói hoặc cách nhau bằng dấu cách. Một bản sửa đổi mới được dựng không có chúng; các lần chạy đang chạy giữ nguyên môi trường của chúng.</translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation>&amp;Cài</translation>
    </message>
    <message>
        <source>&amp;Uninstall</source>
        <translation>&amp;Gỡ</translation>
    </message>
    <message>
        <source>In the current revision: %1</source>
        <translation>Trong bản sửa đổi hiện tại: %1</translation>
    </message>
    <message>
        <source>Will send: %1</source>
        <translation>Sẽ gửi: %1</translation>
    </message>
</context>
<context>
    <name>runbox::console::ProfileDialog</name>
    <message>
        <source>Add agent</source>
        <translation>Thêm agent</translation>
    </message>
    <message>
        <source>Edit agent</source>
        <translation>Sửa agent</translation>
    </message>
    <message>
        <source>Token for %1</source>
        <translation>Token cho %1</translation>
    </message>
    <message>
        <source>e.g. gpu-node-3</source>
        <translation>ví dụ gpu-node-3</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>giữ nguyên</translation>
    </message>
    <message>
        <source>contents of agent.token</source>
        <translation>nội dung của agent.token</translation>
    </message>
    <message>
        <source>Show the token</source>
        <translation>Hiện token</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Tên:</translation>
    </message>
    <message>
        <source>&amp;URL:</source>
        <translation>&amp;URL:</translation>
    </message>
    <message>
        <source>&amp;Token:</source>
        <translation>T&amp;oken:</translation>
    </message>
    <message>
        <source>The token is kept in the system keychain. Where no keychain service is reachable it is kept for this session only, never in a file.</source>
        <translation>Token được lưu trong chuỗi khóa của hệ thống. Nếu không có dịch vụ chuỗi khóa, token chỉ được giữ trong phiên này, không bao giờ ghi vào tệp.</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Lưu</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>Kết nối</translation>
    </message>
    <message>
        <source>Paste the agent&apos;s token (its agent.token file, or a workspace token).</source>
        <translation>Hãy dán token của agent (tệp agent.token của nó, hoặc token của workspace).</translation>
    </message>
    <message>
        <source>A token has no spaces.</source>
        <translation>Token không chứa khoảng trắng.</translation>
    </message>
    <message>
        <source>https:// agents: the SHA-256 fingerprint of its certificate, from runbox-agent --print-fingerprint on the agent&apos;s host. Empty: only a certificate your system trusts is accepted.</source>
        <translation>Agent https://: dấu vân tay SHA-256 của chứng chỉ, lấy bằng runbox-agent --print-fingerprint trên máy của agent. Để trống: chỉ chấp nhận chứng chỉ mà hệ thống của bạn tin cậy.</translation>
    </message>
    <message>
        <source>TLS &amp;fingerprint:</source>
        <translation>&amp;Dấu vân tay TLS:</translation>
    </message>
    <message>
        <source>Connect through &amp;SSH</source>
        <translation>Kết nối qua &amp;SSH</translation>
    </message>
    <message>
        <source>Runs your own ssh (your ssh_config, keys and agent; never a password prompt) with a local port forward to the agent.</source>
        <translation>Chạy ssh của chính bạn (ssh_config, khóa và agent của bạn; không bao giờ hỏi mật khẩu) với chuyển tiếp cổng cục bộ tới agent.</translation>
    </message>
    <message>
        <source>ssh&apos;s default</source>
        <translation>mặc định của ssh</translation>
    </message>
    <message>
        <source>Agent&apos;s unix socket</source>
        <translation>Unix socket của agent</translation>
    </message>
    <message>
        <source>Agent&apos;s TCP address</source>
        <translation>Địa chỉ TCP của agent</translation>
    </message>
    <message>
        <source>SSH &amp;host:</source>
        <translation>&amp;Máy chủ SSH:</translation>
    </message>
    <message>
        <source>SSH &amp;user:</source>
        <translation>&amp;Người dùng SSH:</translation>
    </message>
    <message>
        <source>SSH &amp;port:</source>
        <translation>&amp;Cổng SSH:</translation>
    </message>
    <message>
        <source>&amp;Remote end:</source>
        <translation>Đầu từ &amp;xa:</translation>
    </message>
    <message>
        <source>The remote socket must be an absolute path, e.g. %1.</source>
        <translation>Socket từ xa phải là đường dẫn tuyệt đối, ví dụ %1.</translation>
    </message>
    <message>
        <source>The remote address must be host:port, e.g. %1.</source>
        <translation>Địa chỉ từ xa phải có dạng máy:cổng, ví dụ %1.</translation>
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
        <translation>Chưa kết nối</translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotaEditor</name>
    <message>
        <source>Unlimited</source>
        <translation>Không giới hạn</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source> s</source>
        <translation> giây</translation>
    </message>
    <message>
        <source>0 = no limit</source>
        <translation>0 = không giới hạn</translation>
    </message>
    <message>
        <source>= %1 bytes</source>
        <translation>= %1 byte</translation>
    </message>
    <message>
        <source>= %1 bytes (not a whole hundredth of a GiB; kept exactly unless edited)</source>
        <translation>= %1 byte (không chia hết cho 0,01 GiB; giữ nguyên giá trị trừ khi bạn sửa)</translation>
    </message>
    <message>
        <source>= %1</source>
        <translation>= %1</translation>
    </message>
    <message>
        <source> cores</source>
        <translation> lõi</translation>
    </message>
    <message>
        <source>= %1 millicores (cgroup v2 cpu.max)</source>
        <translation>= %1 mili-lõi (cgroup v2 cpu.max)</translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotaValues</name>
    <message>
        <source>(unset)</source>
        <translation>(chưa đặt)</translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation>không giới hạn</translation>
    </message>
    <message>
        <source>Workspace total</source>
        <translation>Tổng dung lượng workspace</translation>
    </message>
    <message>
        <source>Retained output</source>
        <translation>Đầu ra được giữ</translation>
    </message>
    <message>
        <source>Upload per file</source>
        <translation>Tải lên mỗi tệp</translation>
    </message>
    <message>
        <source>Upload per request</source>
        <translation>Tải lên mỗi yêu cầu</translation>
    </message>
    <message>
        <source>Default timeout</source>
        <translation>Thời gian chờ mặc định</translation>
    </message>
    <message>
        <source>Maximum timeout</source>
        <translation>Thời gian chờ tối đa</translation>
    </message>
    <message>
        <source>Concurrent executions</source>
        <translation>Số lần chạy đồng thời</translation>
    </message>
    <message>
        <source>Light workspaces</source>
        <translation>Workspace nhẹ</translation>
    </message>
    <message>
        <source>Disk a workspace may use (allocated blocks); an execution that grows past it ends as quota_exceeded.</source>
        <translation>Dung lượng đĩa một workspace được dùng (theo khối đã cấp phát); lần chạy vượt quá sẽ kết thúc với quota_exceeded.</translation>
    </message>
    <message>
        <source>Output kept per execution: head and tail are kept around a marker, the run never fails for it.</source>
        <translation>Đầu ra được giữ cho mỗi lần chạy: giữ phần đầu và phần cuối quanh một dấu mốc, lần chạy không bao giờ thất bại vì điều này.</translation>
    </message>
    <message>
        <source>Largest single file accepted by the file API.</source>
        <translation>Tệp đơn lớn nhất mà API tệp chấp nhận.</translation>
    </message>
    <message>
        <source>Largest upload request accepted by the file API.</source>
        <translation>Yêu cầu tải lên lớn nhất mà API tệp chấp nhận.</translation>
    </message>
    <message>
        <source>Timeout of an execution that does not ask for one.</source>
        <translation>Thời gian chờ cho lần chạy không tự yêu cầu.</translation>
    </message>
    <message>
        <source>Longest timeout an execution may ask for.</source>
        <translation>Thời gian chờ dài nhất một lần chạy được yêu cầu.</translation>
    </message>
    <message>
        <source>Executions running at once on this host; later ones queue.</source>
        <translation>Số lần chạy cùng lúc trên máy chủ này; các lần sau xếp hàng chờ.</translation>
    </message>
    <message>
        <source>%1 cannot be negative.</source>
        <translation>%1 không được âm.</translation>
    </message>
    <message>
        <source>%1 is above the largest value the agent accepts (%2).</source>
        <translation>%1 vượt quá giá trị lớn nhất agent chấp nhận (%2).</translation>
    </message>
    <message>
        <source>The default timeout must be limited and no longer than the maximum timeout.</source>
        <translation>Thời gian chờ mặc định phải có giới hạn và không dài hơn thời gian chờ tối đa.</translation>
    </message>
    <message>
        <source>%1: %2 → %3, by %4, %5</source>
        <translation>%1: %2 → %3, bởi %4, %5</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>không rõ</translation>
    </message>
    <message>
        <source>%1 cores</source>
        <translation>%1 lõi</translation>
    </message>
    <message>
        <source>Memory per execution</source>
        <translation>Bộ nhớ mỗi lần thực thi</translation>
    </message>
    <message>
        <source>Processes per execution</source>
        <translation>Tiến trình mỗi lần thực thi</translation>
    </message>
    <message>
        <source>CPU per execution</source>
        <translation>CPU mỗi lần thực thi</translation>
    </message>
    <message>
        <source>CPU time one execution may use per second, in cores (cgroup v2 cpu.max). Only hosts that delegate the cpu controller enforce it; elsewhere executions under a limit are refused.</source>
        <translation>Thời gian CPU mà một lần thực thi được dùng mỗi giây, tính bằng lõi (cgroup v2 cpu.max). Chỉ các máy ủy quyền bộ điều khiển cpu mới áp đặt được; ở nơi khác các lần thực thi có giới hạn bị từ chối.</translation>
    </message>
</context>
<context>
    <name>runbox::console::QuotasPage</name>
    <message>
        <source>Quotas</source>
        <translation>Hạn mức</translation>
    </message>
    <message>
        <source>Limits in force for new executions</source>
        <translation>Giới hạn áp dụng cho các lần chạy mới</translation>
    </message>
    <message>
        <source>Sizes are in GiB (1 GiB = 2³⁰ bytes). 0 or Unlimited means no limit. A change applies to executions created after it; running ones keep the limits they started with.</source>
        <translation>Kích thước tính bằng GiB (1 GiB = 2³⁰ byte). 0 hoặc Không giới hạn nghĩa là không có giới hạn. Thay đổi áp dụng cho các lần chạy tạo sau đó; lần đang chạy giữ giới hạn lúc bắt đầu.</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>Á&amp;p dụng</translation>
    </message>
    <message>
        <source>&amp;Revert</source>
        <translation>&amp;Hoàn tác</translation>
    </message>
    <message>
        <source>Send the changed quotas to the agent</source>
        <translation>Gửi các hạn mức đã đổi tới agent</translation>
    </message>
    <message>
        <source>Show the agent&apos;s values again</source>
        <translation>Hiện lại các giá trị của agent</translation>
    </message>
    <message>
        <source>Last change</source>
        <translation>Thay đổi gần nhất</translation>
    </message>
    <message>
        <source>quota settings</source>
        <translation>cài đặt hạn mức</translation>
    </message>
    <message>
        <source>Could not read the quotas</source>
        <translation>Không đọc được hạn mức</translation>
    </message>
    <message>
        <source>No change is recorded, or this agent does not report its audit trail with the quotas.</source>
        <translation>Chưa có thay đổi nào được ghi lại, hoặc agent này không báo nhật ký kiểm toán kèm hạn mức.</translation>
    </message>
    <message>
        <source>The agent refused the quotas (HTTP %1): %2</source>
        <translation>Agent từ chối các hạn mức (HTTP %1): %2</translation>
    </message>
    <message>
        <source>Quotas applied.</source>
        <translation>Đã áp dụng hạn mức.</translation>
    </message>
</context>
<context>
    <name>runbox::console::RunDialog</name>
    <message>
        <source>Run</source>
        <translation>Chạy</translation>
    </message>
    <message>
        <source>New run</source>
        <translation>Lần chạy mới</translation>
    </message>
    <message>
        <source>New strong workspace</source>
        <translation>Workspace cách ly mạnh mới</translation>
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
        <translation>Chưa cài trên máy chủ này</translation>
    </message>
    <message>
        <source>workspace root</source>
        <translation>thư mục gốc của workspace</translation>
    </message>
    <message>
        <source> s</source>
        <translation> giây</translation>
    </message>
    <message>
        <source>agent default</source>
        <translation>mặc định của agent</translation>
    </message>
    <message>
        <source>none (e.g. 2, 5)</source>
        <translation>không có (ví dụ 2, 5)</translation>
    </message>
    <message>
        <source>Add a variable</source>
        <translation>Thêm biến</translation>
    </message>
    <message>
        <source>Remove the selected variable</source>
        <translation>Xóa biến đã chọn</translation>
    </message>
    <message>
        <source>&amp;Workspace:</source>
        <translation>&amp;Workspace:</translation>
    </message>
    <message>
        <source>&amp;Kind:</source>
        <translation>&amp;Loại:</translation>
    </message>
    <message>
        <source>&amp;Script:</source>
        <translation>&amp;Script:</translation>
    </message>
    <message>
        <source>Working &amp;directory:</source>
        <translation>Thư mục làm &amp;việc:</translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation>Môi &amp;trường:</translation>
    </message>
    <message>
        <source>&amp;Timeout:</source>
        <translation>Thời gian &amp;chờ:</translation>
    </message>
    <message>
        <source>NPU &amp;chips:</source>
        <translation>&amp;Chip NPU:</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Chạy</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Chips are logic ids separated by commas, e.g. 2, 5.</source>
        <translation>Chip là các id logic cách nhau bằng dấu phẩy, ví dụ 2, 5.</translation>
    </message>
    <message>
        <source>None (the host&apos;s interpreters)</source>
        <translation>Không (trình thông dịch của máy chủ)</translation>
    </message>
    <message>
        <source>A science environment from the Environments page: the run sees its packages at /opt/science-env (strong workspaces)</source>
        <translation>Một môi trường khoa học từ trang Môi trường: lần chạy thấy các gói của nó tại /opt/science-env (workspace mạnh)</translation>
    </message>
    <message>
        <source>Science en&amp;vironment:</source>
        <translation>Môi trường &amp;khoa học:</translation>
    </message>
    <message>
        <source>This agent has no science environments yet.</source>
        <translation>Agent này chưa có môi trường khoa học.</translation>
    </message>
    <message>
        <source>%1 (%2, %3)</source>
        <translation>%1 (%2, %3)</translation>
    </message>
    <message>
        <source>No ready revision yet (%1)</source>
        <translation>Chưa có bản sửa đổi sẵn sàng (%1)</translation>
    </message>
    <message>
        <source>This light workspace was created without a science environment: choose none, or a strong or new workspace (a light workspace gets its environment when it is created).</source>
        <translation>Không gian làm việc nhẹ này được tạo không có môi trường khoa học: hãy chọn không có, hoặc một không gian làm việc mạnh hay mới (không gian làm việc nhẹ nhận môi trường khi được tạo).</translation>
    </message>
    <message>
        <source>This light workspace runs the science environment it was created with (%1): choose that one.</source>
        <translation>Không gian làm việc nhẹ này chạy môi trường khoa học mà nó được tạo cùng (%1): hãy chọn môi trường đó.</translation>
    </message>
</context>
<context>
    <name>runbox::console::RunRequest</name>
    <message>
        <source>The working directory is relative to the workspace: remove the leading &apos;/&apos;.</source>
        <translation>Thư mục làm việc là tương đối so với workspace: hãy bỏ dấu &apos;/&apos; ở đầu.</translation>
    </message>
    <message>
        <source>The working directory may not contain NUL or &apos;\&apos;.</source>
        <translation>Thư mục làm việc không được chứa NUL hoặc &apos;\&apos;.</translation>
    </message>
    <message>
        <source>The working directory is longer than 4096 bytes.</source>
        <translation>Thư mục làm việc dài hơn 4096 byte.</translation>
    </message>
    <message>
        <source>The working directory may not contain &apos;.&apos;, &apos;..&apos; or empty segments.</source>
        <translation>Thư mục làm việc không được chứa &apos;.&apos;, &apos;..&apos; hay đoạn rỗng.</translation>
    </message>
    <message>
        <source>Choose shell, Python or R.</source>
        <translation>Hãy chọn shell, Python hoặc R.</translation>
    </message>
    <message>
        <source>The script is empty.</source>
        <translation>Script đang trống.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid environment variable name.</source>
        <translation>&quot;%1&quot; không phải tên biến môi trường hợp lệ.</translation>
    </message>
    <message>
        <source>The variable %1 is set twice.</source>
        <translation>Biến %1 bị đặt hai lần.</translation>
    </message>
    <message>
        <source>The timeout cannot be negative.</source>
        <translation>Thời gian chờ không được âm.</translation>
    </message>
</context>
<context>
    <name>runbox::console::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Cài đặt</translation>
    </message>
    <message>
        <source> Mi characters</source>
        <translation> Mi ký tự</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Ngôn ngữ:</translation>
    </message>
    <message>
        <source>Log view &amp;keeps:</source>
        <translation>Khung nhật ký &amp;giữ:</translation>
    </message>
    <message>
        <source>A new language applies the next time the console starts.</source>
        <translation>Ngôn ngữ mới sẽ áp dụng ở lần khởi động console tiếp theo.</translation>
    </message>
    <message>
        <source>The ssh that SSH profiles run: a name on PATH or a path, e.g. a wrapper that adds options. Applies to connections opened from now on.</source>
        <translation>Chương trình ssh mà các hồ sơ SSH chạy: một tên trong PATH hoặc một đường dẫn, ví dụ một trình bao thêm tùy chọn. Áp dụng cho các kết nối mở từ bây giờ.</translation>
    </message>
    <message>
        <source>SSH &amp;program:</source>
        <translation>&amp;Chương trình SSH:</translation>
    </message>
    <message>
        <source>The fleet file: the agents list, shared with the runbox CLI and the Python client (--fleet to use another).</source>
        <translation>Tệp fleet: danh sách agent, dùng chung với CLI runbox và client Python (--fleet để dùng tệp khác).</translation>
    </message>
    <message>
        <source>Agents are kept in:</source>
        <translation>Các agent được lưu trong:</translation>
    </message>
</context>
<context>
    <name>runbox::console::SshTunnel</name>
    <message numerus="yes">
        <source>ssh did not open the local port within %n s.</source>
        <translation>
            <numerusform>ssh không mở cổng cục bộ trong %n giây.</numerusform>
        </translation>
    </message>
    <message>
        <source>No free local port for the SSH tunnel.</source>
        <translation>Không còn cổng cục bộ trống cho đường hầm SSH.</translation>
    </message>
    <message>
        <source>Cannot run %1: %2</source>
        <translation>Không thể chạy %1: %2</translation>
    </message>
    <message>
        <source>ssh was killed.</source>
        <translation>ssh đã bị buộc dừng.</translation>
    </message>
    <message>
        <source>ssh exited with status %1.</source>
        <translation>ssh đã thoát với mã trạng thái %1.</translation>
    </message>
</context>
<context>
    <name>runbox::console::TokenVault</name>
    <message>
        <source>Tokens are kept for this session only (keychain disabled).</source>
        <translation>Token chỉ được giữ trong phiên này (đã tắt chuỗi khóa).</translation>
    </message>
    <message>
        <source>No keychain service is reachable (%1). Tokens are kept for this session only and are never written to disk; you will be asked again next time.</source>
        <translation>Không truy cập được dịch vụ chuỗi khóa nào (%1). Token chỉ được giữ trong phiên này và không bao giờ ghi xuống đĩa; lần sau bạn sẽ được hỏi lại.</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>lỗi không rõ</translation>
    </message>
</context>
<context>
    <name>runbox::console::TransferPanel</name>
    <message>
        <source>Transfers</source>
        <translation>Truyền tệp</translation>
    </message>
    <message>
        <source>C&amp;lear finished</source>
        <translation>Xóa mục đã &amp;xong</translation>
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
        <translation>Hủy</translation>
    </message>
    <message>
        <source>%p% of %1</source>
        <translation>%p% của %1</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Xong</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Thất bại: %1</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Đã hủy</translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspaceInfo</name>
    <message>
        <source>Strong</source>
        <translation>Mạnh</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Nhẹ</translation>
    </message>
    <message>
        <source>Background processes killed (%1)</source>
        <translation>Tiến trình nền đã bị dừng (%1)</translation>
    </message>
    <message>
        <source>Background processes killed (%1): %2</source>
        <translation>Tiến trình nền đã bị dừng (%1): %2</translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspaceTableModel</name>
    <message>
        <source>Confinement: %1</source>
        <translation>Giới hạn cô lập: %1</translation>
    </message>
    <message>
        <source>never evicted</source>
        <translation>không bao giờ bị thu hồi</translation>
    </message>
    <message>
        <source>evicted after %1 s idle</source>
        <translation>bị thu hồi sau %1 giây nhàn rỗi</translation>
    </message>
    <message>
        <source>kept for this session</source>
        <translation>giữ trong phiên này</translation>
    </message>
    <message>
        <source>The scoped token of this workspace is kept in memory until the console closes; it is never written to disk.</source>
        <translation>Token phạm vi của workspace này được giữ trong bộ nhớ đến khi đóng bảng điều khiển; không bao giờ được ghi xuống đĩa.</translation>
    </message>
    <message>
        <source>The agent gives a workspace&apos;s token only when it is created: tokens of workspaces made elsewhere cannot be copied here.</source>
        <translation>Agent chỉ trao token của workspace khi tạo nó: không thể sao chép ở đây token của workspace được tạo ở nơi khác.</translation>
    </message>
    <message>
        <source>build workspace of environment %1</source>
        <translation>workspace dựng của môi trường %1</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>Workspace</translation>
    </message>
    <message>
        <source>Isolation</source>
        <translation>Mức cô lập</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Tạo lúc</translation>
    </message>
    <message>
        <source>UID</source>
        <translation>UID</translation>
    </message>
    <message>
        <source>Idle timeout</source>
        <translation>Thời gian chờ nhàn rỗi</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>Ghi chú</translation>
    </message>
    <message>
        <source>As the agent said when the workspace was created.</source>
        <translation>Theo những gì agent cho biết khi tạo workspace.</translation>
    </message>
    <message>
        <source>Not measured yet.</source>
        <translation>Chưa đo.</translation>
    </message>
    <message>
        <source>%1 bytes on disk, as the workspace quota counts them.</source>
        <translation>%1 byte trên đĩa, như hạn mức không gian làm việc tính.</translation>
    </message>
    <message>
        <source>At least %1 bytes: the walk stopped at the agent&apos;s entry cap.</source>
        <translation>Ít nhất %1 byte: lần duyệt dừng ở giới hạn số mục của tác tử.</translation>
    </message>
    <message>
        <source>%1, last %2</source>
        <translation>%1, lần cuối %2</translation>
    </message>
    <message>
        <source>Executions the agent keeps records of (managed runs, environment builds, NPU jobs; sync executions are not recorded) and when the newest was started.</source>
        <translation>Các lần thực thi mà tác tử lưu hồ sơ (lần chạy được quản lý, bản dựng môi trường, tác vụ NPU; lần thực thi đồng bộ không được ghi lại) và thời điểm lần mới nhất bắt đầu.</translation>
    </message>
    <message>
        <source>runs environment %1</source>
        <translation>chạy môi trường %1</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Kích thước</translation>
    </message>
    <message>
        <source>Executions</source>
        <translation>Các lần chạy</translation>
    </message>
    <message>
        <source>evicted at %1 if idle</source>
        <translation>bị thu hồi lúc %1 nếu vẫn nhàn rỗi</translation>
    </message>
    <message>
        <source>in use (evicted after %1 s idle)</source>
        <translation>đang dùng (bị thu hồi sau %1 giây nhàn rỗi)</translation>
    </message>
    <message>
        <source>Evicted after %1 s without use; last used %2.</source>
        <translation>Bị thu hồi sau %1 giây không dùng; lần dùng cuối %2.</translation>
    </message>
</context>
<context>
    <name>runbox::console::WorkspacesPage</name>
    <message>
        <source>Workspaces</source>
        <translation>Workspace</translation>
    </message>
    <message>
        <source>&amp;Create…</source>
        <translation>&amp;Tạo…</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>&amp;Xóa…</translation>
    </message>
    <message>
        <source>Copy &amp;token</source>
        <translation>Sao chép &amp;token</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>&amp;Làm mới</translation>
    </message>
    <message>
        <source>Create one strong workspace or a batch of light ones</source>
        <translation>Tạo một workspace mạnh hoặc một lô workspace nhẹ</translation>
    </message>
    <message>
        <source>Delete the selected workspaces and their files</source>
        <translation>Xóa các workspace đã chọn và tệp của chúng</translation>
    </message>
    <message>
        <source>Copy the scoped token of a workspace created in this session</source>
        <translation>Sao chép token phạm vi của một workspace được tạo trong phiên này</translation>
    </message>
    <message>
        <source>The agent gives a workspace&apos;s scoped token only when it is created: the console keeps the tokens of the workspaces created here in memory for this session only and never writes them to disk.</source>
        <translation>Agent chỉ trao token phạm vi của workspace khi tạo nó: bảng điều khiển chỉ giữ token của các workspace tạo ở đây trong bộ nhớ, trong phiên này, và không bao giờ ghi chúng xuống đĩa.</translation>
    </message>
    <message>
        <source>workspaces</source>
        <translation>workspace</translation>
    </message>
    <message>
        <source>Could not read the workspaces</source>
        <translation>Không đọc được các workspace</translation>
    </message>
    <message>
        <source>Light tier: %1 of %2 workspaces</source>
        <translation>Tầng nhẹ: %1 trên %2 workspace</translation>
    </message>
    <message>
        <source>Light tier: %1 workspaces, no capacity set</source>
        <translation>Tầng nhẹ: %1 workspace, chưa đặt sức chứa</translation>
    </message>
    <message>
        <source>idle light workspaces evicted after %1 s by default</source>
        <translation>workspace nhẹ nhàn rỗi mặc định bị thu hồi sau %1 giây</translation>
    </message>
    <message>
        <source>Light tier unavailable: %1</source>
        <translation>Tầng nhẹ không khả dụng: %1</translation>
    </message>
    <message>
        <source>Creating workspaces…</source>
        <translation>Đang tạo workspace…</translation>
    </message>
    <message>
        <source>Could not create workspaces: %1</source>
        <translation>Không tạo được workspace: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) created.</source>
        <translation>
            <numerusform>Đã tạo %n workspace.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not made: the agent&apos;s capacity for them is used up (its light-workspace quota or its pool&apos;s capacity).</source>
        <translation>
            <numerusform>%n cái không được tạo: sức chứa của agent đã hết (hạn mức workspace nhẹ hoặc sức chứa của pool).</numerusform>
        </translation>
    </message>
    <message>
        <source>Delete workspaces</source>
        <translation>Xóa workspace</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n workspace(s) and every file in them? This cannot be undone.</source>
        <translation>
            <numerusform>Xóa %n workspace cùng mọi tệp trong đó? Không thể hoàn tác.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleting %n workspace(s)…</source>
        <translation>
            <numerusform>Đang xóa %n workspace…</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) not deleted:</source>
        <translation>
            <numerusform>%n workspace không bị xóa:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) deleted.</source>
        <translation>
            <numerusform>Đã xóa %n workspace.</numerusform>
        </translation>
    </message>
    <message>
        <source>No token kept for this workspace: the agent gives it only when the workspace is created.</source>
        <translation>Không có token nào được giữ cho workspace này: agent chỉ trao nó khi tạo workspace.</translation>
    </message>
    <message>
        <source>Token of %1 copied to the clipboard.</source>
        <translation>Đã sao chép token của %1 vào bảng nhớ tạm.</translation>
    </message>
    <message>
        <source>Open &amp;files</source>
        <translation>Mở &amp;tệp</translation>
    </message>
    <message>
        <source>Browse the files of the selected workspace</source>
        <translation>Duyệt các tệp của workspace đã chọn</translation>
    </message>
</context>
</TS>
