// Package forumgm holds what belongs to the whole program rather than to one
// package: its version. (The database schema is the store's migrations;
// schema.sql and schema.postgres.sql beside this file show the tables they
// make, generated from them by the store's tests.)
package forumgm

// Version is the program's version.
const Version = "0.1.0"
