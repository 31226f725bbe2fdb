//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// identify returns the device and inode of a file and its number of links.
func identify(fi fs.FileInfo) (id fileID, nlink uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, 0, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, uint64(st.Nlink), true
}
