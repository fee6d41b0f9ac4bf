<?php
// Runs a PHP snippet (read from stdin) inside an installed phpBB board.
// The board root is the working directory.
define('IN_PHPBB', true);
// The harness must work on a board its test has disabled (to enable it again).
define('SKIP_CHECK_DISABLED', true);
$phpbb_root_path = './';
$phpEx = 'php';
include($phpbb_root_path . 'common.php');
include($phpbb_root_path . 'includes/functions_user.php');
include($phpbb_root_path . 'includes/functions_posting.php');
include($phpbb_root_path . 'includes/functions_privmsgs.php');
include($phpbb_root_path . 'includes/message_parser.php');
$user->session_begin(false);
$auth->acl($user->data);
$user->setup();

// rb_as makes the snippet act as a user (posting, PMs).
function rb_as($uid) {
	global $user, $auth, $db;
	$sql = 'SELECT * FROM ' . USERS_TABLE . ' WHERE user_id = ' . (int) $uid;
	$res = $db->sql_query($sql);
	$row = $db->sql_fetchrow($res);
	$db->sql_freeresult($res);
	if (!$row) { throw new Exception("no user $uid"); }
	$user->data = array_merge($user->data, $row);
	$user->ip = '127.0.0.1';
	$auth->acl($user->data);
}

function rb_add_user($name, $password) {
	global $db;
	$res = $db->sql_query("SELECT group_id FROM " . GROUPS_TABLE . " WHERE group_name = 'REGISTERED'");
	$gid = (int) $db->sql_fetchfield('group_id');
	$db->sql_freeresult($res);
	$uid = user_add([
		'username' => $name,
		'user_password' => phpbb_hash($password),
		'user_email' => strtolower(preg_replace('/[^A-Za-z0-9]/', '', $name)) . '@example.com',
		'group_id' => $gid,
		'user_type' => USER_NORMAL,
		'user_lang' => 'en',
		'user_timezone' => 'UTC',
		'user_dateformat' => 'D M d, Y g:i a',
		'user_regdate' => time(),
	]);
	if (!$uid) { throw new Exception("user_add $name failed"); }
	return $uid;
}

// rb_post posts as $uid; $topic 0 starts a topic in $forum. Returns [topic, post].
function rb_post($uid, $forum, $topic, $subject, $text, $time = 0) {
	global $user;
	rb_as($uid);
	$mp = new parse_message($text);
	$mp->parse(true, true, true, true, false, true, true);
	$data = [
		'forum_id' => (int) $forum,
		'topic_id' => (int) $topic,
		'icon_id' => 0,
		'enable_bbcode' => true, 'enable_smilies' => true, 'enable_urls' => true, 'enable_sig' => true,
		'message' => $mp->message,
		'message_md5' => md5($mp->message),
		'bbcode_bitfield' => $mp->bbcode_bitfield,
		'bbcode_uid' => $mp->bbcode_uid,
		'post_edit_locked' => 0,
		'topic_title' => $subject,
		'notify_set' => false, 'notify' => false,
		'post_time' => $time ? (int) $time : time(),
		'forum_name' => '',
		'enable_indexing' => true,
		'force_approved_state' => ITEM_APPROVED,
		'poster_ip' => '127.0.0.1',
	];
	$poll = [];
	submit_post($topic ? 'reply' : 'post', $subject, $user->data['username'], POST_NORMAL, $poll, $data);
	return [(int) $data['topic_id'], (int) $data['post_id']];
}

function rb_pm($from, $to, $subject, $text) {
	global $user;
	rb_as($from);
	$mp = new parse_message($text);
	$mp->parse(true, true, true, true, false, true, true);
	$data = [
		'msg_id' => 0, 'from_user_id' => (int) $from, 'from_user_ip' => '127.0.0.1',
		'from_username' => $user->data['username'],
		'reply_from_root_level' => 0, 'reply_from_msg_id' => 0, 'icon_id' => 0,
		'enable_sig' => false, 'enable_bbcode' => true, 'enable_smilies' => true, 'enable_urls' => true,
		'bbcode_bitfield' => $mp->bbcode_bitfield, 'bbcode_uid' => $mp->bbcode_uid,
		'message' => $mp->message, 'attachment_data' => [], 'filename_data' => [],
		'address_list' => ['u' => [(int) $to => 'to']],
	];
	return (int) submit_pm('post', $subject, $data, false);
}

function rb_setting($name, $value) {
	global $config;
	$config->set($name, $value);
}

// rb_exempt adds a user to Global moderators (u_ignoreflood, as an admin
// would grant it).
function rb_exempt($uid) {
	global $db, $auth;
	$res = $db->sql_query("SELECT group_id FROM " . GROUPS_TABLE . " WHERE group_name = 'GLOBAL_MODERATORS'");
	$gid = (int) $db->sql_fetchfield('group_id');
	$db->sql_freeresult($res);
	$err = group_user_add($gid, [(int) $uid]);
	if ($err) { throw new Exception("group_user_add: $err"); }
	$auth->acl_clear_prefetch((int) $uid);
}

function rb_query($sql) {
	global $db;
	$res = $db->sql_query($sql);
	if ($res === true) { return []; }
	$rows = $db->sql_fetchrowset($res);
	$db->sql_freeresult($res);
	return $rows;
}

$code = stream_get_contents(STDIN);
eval($code);
