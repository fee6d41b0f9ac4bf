<?php
// Runs a PHP snippet (read from stdin) inside an installed MyBB board, with
// MyBB's own data handlers. The board root is the working directory.
define('IN_MYBB', 1);
define('THIS_SCRIPT', 'forumgm_realboard.php');
define('NO_ONLINE', 1);
require_once './inc/init.php';
require_once MYBB_ROOT . 'inc/functions_user.php';
require_once MYBB_ROOT . 'inc/class_parser.php';
require_once MYBB_ROOT . 'inc/datahandlers/user.php';
require_once MYBB_ROOT . 'inc/datahandlers/post.php';
require_once MYBB_ROOT . 'inc/datahandlers/pm.php';
$lang->set_language($mybb->settings['bblanguage']);
$lang->load('global');
$lang->load('messages');
$session = new stdClass();
$session->ipaddress = '127.0.0.1';
$session->packedip = my_inet_pton('127.0.0.1');
$session->sid = 0;

// rb_as makes the snippet act as a user.
function rb_as($uid) {
	global $mybb;
	$mybb->user = get_user((int) $uid);
	if (!$mybb->user) { throw new Exception("no user $uid"); }
	$mybb->usergroup = usergroup_permissions($mybb->user['usergroup'] . ($mybb->user['additionalgroups'] ? ',' . $mybb->user['additionalgroups'] : ''));
}

function rb_fail($what, $h) {
	throw new Exception($what . ': ' . implode('; ', $h->get_friendly_errors()));
}

function rb_add_user($name, $password, $group = 2) {
	$h = new UserDataHandler('insert');
	$h->set_data([
		'username' => $name, 'password' => $password, 'password2' => $password,
		'email' => strtolower(preg_replace('/[^A-Za-z0-9]/', '', $name)) . '@example.com',
		'email2' => strtolower(preg_replace('/[^A-Za-z0-9]/', '', $name)) . '@example.com',
		'usergroup' => (int) $group, 'regip' => '127.0.0.1', 'timezone' => 0,
	]);
	if (!$h->validate_user()) { rb_fail("add user $name", $h); }
	$info = $h->insert_user();
	return (int) $info['uid'];
}

// rb_post posts as $uid; $tid 0 starts a thread in $fid. Returns [tid, pid].
// $override skips the flood check (and nothing else).
function rb_post($uid, $fid, $tid, $subject, $text, $override = true) {
	global $mybb;
	rb_as($uid);
	$h = new PostDataHandler('insert');
	$h->admin_override = (bool) $override;
	$data = [
		'fid' => (int) $fid, 'subject' => $subject, 'uid' => (int) $uid,
		'username' => $mybb->user['username'], 'message' => $text, 'ipaddress' => '127.0.0.1',
		'options' => ['signature' => 0, 'subscriptionmethod' => '', 'disablesmilies' => 0],
	];
	if ($tid) {
		$h->action = 'post';
		$data['tid'] = (int) $tid;
		$h->set_data($data);
		if (!$h->validate_post()) { rb_fail('post', $h); }
		$info = $h->insert_post();
		return [(int) $tid, (int) $info['pid']];
	}
	$h->action = 'thread';
	$h->set_data($data);
	if (!$h->validate_thread()) { rb_fail('thread', $h); }
	$info = $h->insert_thread();
	return [(int) $info['tid'], (int) $info['pid']];
}

// rb_pm sends a PM from $from to $to (user ids), keeping a copy in the
// sender's Sent Items as the web form does by default.
function rb_pm($from, $to, $subject, $text, $override = true) {
	rb_as($from);
	$h = new PMDataHandler();
	$h->admin_override = (bool) $override;
	$h->set_data([
		'subject' => $subject, 'message' => $text, 'fromid' => (int) $from,
		'toid' => [(int) $to], 'ipaddress' => '127.0.0.1',
		'options' => ['signature' => 0, 'disablesmilies' => 0, 'savecopy' => 1, 'readreceipt' => 0],
	]);
	if (!$h->validate_pm()) { rb_fail('pm', $h); }
	$info = $h->insert_pm();
	// The recipient's copy is inserted first; the sender's Sent copy after.
	$ids = array_values((array) ($info['pmids'] ?? []));
	return (int) ($ids[0] ?? 0);
}

// rb_setting changes a setting while the board serves. MyBB's own
// rebuild_settings() rewrites inc/settings.php in place, so a request that
// includes it meanwhile can read half a file: a parse error, which MyBB
// answers with its error page, a 503 with Retry-After: 1800 that holds the
// bot for its 5-minute cap. The same file is written here and renamed into
// place, which a reader sees whole or not at all.
function rb_setting($name, $value) {
	global $db;
	$db->update_query('settings', ['value' => $db->escape_string((string) $value)], "name='" . $db->escape_string($name) . "'");
	$query = $db->simple_select('settings', 'value, name', '', ['order_by' => 'title', 'order_dir' => 'ASC']);
	$lines = '';
	while ($s = $db->fetch_array($query)) {
		$lines .= "\$settings['" . addcslashes($s['name'], "\\'") . "'] = \"" . addcslashes($s['value'], '\\"$') . "\";\n";
	}
	$file = MYBB_ROOT . 'inc/settings.php';
	$tmp = $file . '.rb' . getmypid();
	file_put_contents($tmp, "<?php\n\n" . $lines . "\n");
	if (!rename($tmp, $file)) { throw new Exception("rb_setting: cannot replace $file"); }
}

// rb_exempt puts a user in Super Moderators (exempt from post and PM flood).
function rb_exempt($uid) {
	global $db;
	$db->update_query('users', ['usergroup' => 3], 'uid=' . (int) $uid);
}

function rb_query($sql) {
	global $db;
	$q = $db->query($sql);
	$rows = [];
	while ($q && ($r = $db->fetch_array($q))) {
		$rows[] = $r;
	}
	return $rows;
}

$code = stream_get_contents(STDIN);
eval($code);
