<?php
// Runs a PHP snippet (read from stdin) inside an installed SMF 2.1 board,
// loaded through SSI.php, with SMF's own member, post and PM code. The
// board root is the working directory.
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
require_once './SSI.php';
require_once $sourcedir . '/Subs-Members.php';
require_once $sourcedir . '/Subs-Post.php';
loadLanguage('index+Post+PersonalMessage');
// The harness reads and changes rows freely (no UNION/comment check).
$modSettings['disableQueryCheck'] = 1;

// rb_as makes the snippet act as a member.
function rb_as($id) {
	global $user_info, $smcFunc;
	$r = $smcFunc['db_query']('', 'SELECT id_member, member_name, real_name, id_group FROM {db_prefix}members WHERE id_member = {int:id}', ['id' => (int) $id]);
	$m = $smcFunc['db_fetch_assoc']($r);
	if (!$m) { throw new Exception("no member $id"); }
	$user_info = array_merge((array) $user_info, [
		'id' => (int) $m['id_member'], 'username' => $m['member_name'], 'name' => $m['real_name'],
		'groups' => [(int) $m['id_group'], 0], 'is_guest' => false, 'is_admin' => $m['id_group'] == 1, 'permissions' => $m['id_group'] == 1 ? ['admin_forum', 'moderate_forum'] : [],
		'ip' => '127.0.0.1', 'language' => 'english', 'email' => '',
	]);
	return $m;
}

function rb_add_user($name, $password, $group = 0) {
	rb_as(1); // the admin registers accounts (interface 'admin')
	$reg = [
		'interface' => 'admin', 'username' => $name,
		'email' => strtolower(preg_replace('/[^A-Za-z0-9]/', '', $name)) . '@example.com',
		'password' => $password, 'password_check' => $password,
		'check_reserved_name' => false, 'check_password_strength' => false, 'check_email_ban' => false,
		'send_welcome_email' => false, 'require' => 'nothing', 'memberGroup' => (int) $group,
	];
	$id = registerMember($reg, true);
	if (is_array($id)) { throw new Exception("add user $name: " . json_encode($id)); }
	return (int) $id;
}

// rb_post posts as $uid in board $board; $topic 0 starts a topic. Returns
// [topic, msg]. No flood check (that lives in Post2, not createPost).
function rb_post($uid, $board, $topic, $subject, $text) {
	global $smcFunc;
	$m = rb_as($uid);
	$body = $smcFunc['htmlspecialchars']($text, ENT_QUOTES);
	preparsecode($body);
	$msg = ['subject' => $smcFunc['htmlspecialchars']($subject), 'body' => $body, 'icon' => 'xx', 'smileys_enabled' => true, 'approved' => true];
	$top = ['id' => $topic ? (int) $topic : null, 'board' => (int) $board, 'mark_as_read' => false];
	$poster = ['id' => (int) $uid, 'name' => $m['real_name'], 'email' => '', 'ip' => '127.0.0.1', 'update_post_count' => true];
	if (!createPost($msg, $top, $poster)) { throw new Exception('createPost failed'); }
	return [(int) $top['id'], (int) $msg['id']];
}

// rb_pm sends a PM from $from to $to (member ids), keeping the sender's
// copy in its sent items as the web form does. Returns the PM id.
function rb_pm($from, $to, $subject, $text) {
	global $smcFunc;
	$m = rb_as($from);
	// sendpm escapes and preparses the raw text itself, as MessagePost2
	// hands it over.
	$log = sendpm(['to' => [(int) $to], 'bcc' => []], $subject, $text, true,
		['id' => (int) $from, 'name' => $m['real_name'], 'username' => $m['member_name']]);
	if (!empty($log['failed'])) { throw new Exception('sendpm: ' . json_encode($log['failed'])); }
	$r = $smcFunc['db_query']('', 'SELECT MAX(id_pm) AS id FROM {db_prefix}personal_messages WHERE id_member_from = {int:f}', ['f' => (int) $from]);
	return (int) $smcFunc['db_fetch_assoc']($r)['id'];
}

function rb_setting($name, $value) {
	updateSettings([$name => $value]);
}

// rb_exempt makes a member a global moderator (moderate_board: 2 s flood
// wait instead of spamWaitTime).
function rb_exempt($uid) {
	updateMemberData((int) $uid, ['id_group' => 2]);
}

function rb_query($sql) {
	global $smcFunc;
	$q = $smcFunc['db_query']('', $sql, ['security_override' => true]);
	$rows = [];
	if ($q === true || $q === false) { return $rows; }
	while ($r = $smcFunc['db_fetch_assoc']($q)) {
		$rows[] = $r;
	}
	return $rows;
}

$code = stream_get_contents(STDIN);
eval($code);
