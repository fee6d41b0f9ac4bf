// Package multirun holds tests only: several real `forumgm run` processes
// sharing one PostgreSQL database through fenced per-game leases, played
// against local boards (demo.NewBoard) by simulated players. They check
// what issue 12 item 6 and issue 11 item 1 promise: adding a process
// spreads the games; a process killed with SIGKILL loses its games to the
// others within one lease period; a PostgreSQL restart with a second
// runner waiting sends nothing twice; a game handed over (a clean stop, a game given back) while its post is on its way to a slow board is not posted twice; no game with work to do goes
// without a runner longer than a lease period; every post and PM is on its
// board exactly once.
//
// They need the PostgreSQL binaries (store/pgtest) and skip saying so
// when those are missing (FORUMGM_REQUIRE_POSTGRES=1 makes that a
// failure). Every wait has a deadline that fails the test with what it
// was waiting for, and every child process is killed when a test ends.
package multirun
