package sse

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestSlowReadersHoldBoundedBlocks opens more GETs of an encrypted object
// at once than may read it in blocks of several packages, each primed (its
// first block decrypted) and then left unread, as a client that opens
// many GETs and reads none does: only maxLargeBlocks of them hold a block
// of blockPackages, the others a package's plaintext and no ciphertext,
// and each still reads the object's exact bytes and gives its
// block back. A Reader whose writer fails gives it back too.
func TestSlowReadersHoldBoundedBlocks(t *testing.T) {
	s := newAttackStream(t, 7, 10*PackagePayload+5)
	size := int64(len(s.plain))
	// Readers of other tests not yet collected may still count.
	base := largeBlocks.Load()
	const large, readers = 6, 6 + 8
	old := maxLargeBlocks
	maxLargeBlocks = base + large
	t.Cleanup(func() { maxLargeBlocks = old })

	var rds []*Reader
	for range readers {
		rd, err := NewReader(bytes.NewReader(s.ct), s.key, size, 0, size)
		if err != nil {
			t.Fatal(err)
		}
		if err := rd.Prime(); err != nil {
			t.Fatal(err)
		}
		rds = append(rds, rd)
	}
	blocks := map[int]int{}
	for i, rd := range rds {
		blocks[rd.d.block]++
		if rd.d.block == 1 && rd.d.ct != nil {
			t.Fatalf("reader %d holds %d bytes of ciphertext while its block is handed out", i, cap(*rd.d.ct))
		}
		if rd.d.block == 1 && cap(*rd.pb) != PackagePayload {
			t.Fatalf("reader %d reads a package at a time into a buffer of %d bytes", i, cap(*rd.pb))
		}
	}
	if blocks[blockPackages] != large || blocks[1] != readers-large {
		t.Fatalf("blocks of %d primed readers, by packages: %v; want %d of %d, the rest of 1",
			readers, blocks, large, blockPackages)
	}
	for i, rd := range rds {
		var got []byte
		var err error
		if i%2 == 0 {
			var buf bytes.Buffer
			_, err = rd.WriteTo(&buf)
			got = buf.Bytes()
		} else {
			got, err = io.ReadAll(rd)
		}
		if err != nil || !bytes.Equal(got, s.plain) {
			t.Fatalf("reader %d (block %d): %d bytes, %v; want the object's %d", i, rd.d.block, len(got), err, size)
		}
	}
	if n := largeBlocks.Load(); n != base {
		t.Fatalf("%d large blocks counted after every reader ended, %d before", n, base)
	}

	rd, err := NewReader(bytes.NewReader(s.ct), s.key, size, 0, size)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.WriteTo(&failingWriter{after: 1}); !errors.Is(err, errWrite) {
		t.Fatalf("WriteTo a failing writer: %v", err)
	}
	if n := largeBlocks.Load(); n != base || rd.pb != nil {
		t.Fatalf("after a failed write: %d large blocks counted (%d before), plaintext buffer held: %v", n, base, rd.pb != nil)
	}
}

// TestOnePackageRunsTheReadSuites runs the range, damage and attack tests
// of this package again with no large block to be had: every range of
// several packages is then read a package at a time, and must hand out
// exactly the object's bytes or ErrCorrupt.
func TestOnePackageRunsTheReadSuites(t *testing.T) {
	old := maxLargeBlocks
	maxLargeBlocks = -1 << 20
	t.Cleanup(func() { maxLargeBlocks = old })
	for name, f := range readSuites(true) {
		t.Run(name, f)
	}
}
