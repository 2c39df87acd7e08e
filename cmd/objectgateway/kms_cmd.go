package main

import (
	"fmt"
	"path/filepath"

	"github.com/objectgateway/objectgateway/pkg/kms"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/storage"
)

const kmsUsage = `usage: objectgateway kms <command> [--root DIR] [NAME]

  list           list the key ring's keys (names, versions, state; never material)
  create NAME    add a key for SSE-KMS (x-amz-server-side-encryption-aws-kms-key-id)
  rotate NAME    add a version: new objects use it, old ones stay readable
  disable NAME   refuse writes and reads under the key, as AWS KMS does
  enable NAME    undo disable

The ring is ROOT/.objectgateway/kms.json, created 0600 on first use. It is
the only copy of the master keys: back it up apart from the data; losing
it loses every encrypted object. A running gateway sees changes at its
next encrypted request. See docs/security.md.`

// kmsCmd is `objectgateway kms`: it edits the gateway's key ring file.
func kmsCmd(args []string, e env) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(e.stdout, kmsUsage)
		return nil
	}
	sub, args := args[0], args[1:]
	fs, root := offlineFlags("kms "+sub, e)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	wantName := sub != "list"
	if (wantName && len(pos) != 1) || (!wantName && len(pos) != 0) {
		return fmt.Errorf("kms %s: wrong arguments\n%s", sub, kmsUsage)
	}
	ring, err := kms.Open(filepath.Join(*root, storage.StateDir, object.KeyRingFile))
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		keys, err := ring.List()
		if err != nil {
			return err
		}
		for _, k := range keys {
			state := "enabled"
			if k.Disabled {
				state = "disabled"
			}
			fmt.Fprintf(e.stdout, "%s\tversions=%d\t%s\tcreated=%s\n", k.Name, k.Versions, state, k.Created.Format("2006-01-02T15:04:05Z"))
		}
		return nil
	case "create":
		return ring.Create(pos[0])
	case "rotate":
		v, err := ring.Rotate(pos[0])
		if err == nil {
			fmt.Fprintf(e.stdout, "%s: version %d\n", pos[0], v)
		}
		return err
	case "disable":
		return ring.SetDisabled(pos[0], true)
	case "enable":
		return ring.SetDisabled(pos[0], false)
	}
	return fmt.Errorf("unknown kms command %q\n%s", sub, kmsUsage)
}
