// Package testcheck holds the small assertions that the tests of several
// packages share: waiting, boundedly, for something that must happen, and
// checking that a call panics with a message that says what is wrong.
package testcheck
