// Package realboardtest gives tests a real phpBB 3.3.10 or MyBB 1.8.37 board
// (SQLite) on 127.0.0.1, served by PHP's built-in server, with a bot
// account, player accounts with known passwords and a game thread whose
// opening post the bot made.
//
// The engines' unmodified archives come from the directory named by
// FORUMGM_ENGINES (default: the first `shared/engines` folder found beside
// the module root or one of its ancestors, where CI keeps them). Installing is
// slow (phpBB's CLI installer, MyBB's web installer clicked through over
// HTTP), so each engine is installed once into a pristine copy cached under
// the system temp dir, keyed by the archive's hash and the harness version,
// shared between test binaries (a lock file) and across runs; each Start
// copies it (hard links for code, real copies for what the board writes)
// into t.TempDir and serves it with one `php -S` process (no workers:
// SQLite and workers give 503s). Boards keep the engines' real defaults;
// tests that are about a setting change it through PHP, Setting or
// ExemptBot.
//
// When PHP, a PHP extension or an archive is missing the test is skipped
// saying what is missing, or fails when FORUMGM_REQUIRE_REALBOARDS=1 (CI).
//
// The harness runs PHP's built-in server as a child process and uses Linux's
// process and file-lock calls, so its files build on Linux only; elsewhere
// the package is empty and the real-board tests do not build.
package realboardtest
