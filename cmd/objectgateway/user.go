package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/storage"
)

const userUsage = `usage: objectgateway user <command> [--root DIR] ...

  add [NAME] [--access-key AK] [--uid N --gid N] [--email ADDR]
                                                   add a user; prints its secret once
  list                                             list users (never their secrets)
  remove AK                                        remove a user
  rotate AK                                        give a user a new secret; prints it once
  disable AK | enable AK                           refuse or allow a user's requests
  policy put AK FILE|- | get AK | delete AK        a user's identity policy
                                                   (objectgateway user policy -h)

While a gateway serves --root, the change goes through its control
socket (ROOT/.objectgateway/control.sock, or control-HOST-PID.sock of
each gateway sharing a --index catalogue) and is in force from the next
request on; with no gateway running, it is made on the index directly
(the root's, or the one --index or OBJECTGATEWAY_INDEX names).
See docs/users.md and docs/scale-out.md.`

// userCmd is `objectgateway user`: it manages the access keys of --root,
// through the serving gateway's control socket or, with none running, in
// the index directly.
func userCmd(args []string, e env) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(e.stdout, userUsage)
		return nil
	}
	sub, args := args[0], args[1:]
	if sub == "policy" {
		return userPolicyCmd(args, e)
	}
	fs, root := offlineFlags("user "+sub, e)
	index := indexFlag(fs, e)
	var accessKey, email *string
	uid, gid := -1, -1
	if sub == "add" {
		accessKey = fs.String("access-key", "", "access key id (default: generated)")
		email = fs.String("email", "", "email address that ACL grants to an EmailAddress grantee name the user by (optional)")
		fs.IntVar(&uid, "uid", -1, "POSIX uid that owns the files the user creates (with --gid; only when the gateway runs as root)")
		fs.IntVar(&gid, "gid", -1, "POSIX gid that owns the files the user creates (with --uid)")
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	want := 1
	switch sub {
	case "add":
		want = -1 // NAME is optional
	case "list":
		want = 0
	case "remove", "rotate", "disable", "enable":
	default:
		return fmt.Errorf("unknown user command %q\n%s", sub, userUsage)
	}
	if (want >= 0 && len(pos) != want) || (want < 0 && len(pos) > 1) {
		return fmt.Errorf("user %s: wrong number of arguments\n%s", sub, userUsage)
	}
	if (uid < 0) != (gid < 0) {
		return errors.New("user add: give both --uid and --gid, or neither")
	}

	users, done, err := openAdmin(*root, *index, e.getenv)
	if err != nil {
		return err
	}
	defer done()

	switch sub {
	case "add":
		in := object.AddUserInput{AccessKey: *accessKey, Email: *email}
		if len(pos) == 1 {
			in.Name = pos[0]
		}
		if in.Name == "" {
			// A user added without a NAME is named after its access key,
			// as MinIO names its users, so that listings and messages
			// always have a name to show.
			if in.AccessKey == "" {
				in.AccessKey = randomString(20, upperAlnum)
			}
			in.Name = in.AccessKey
		}
		if uid >= 0 {
			in.POSIX = &object.POSIXOwner{UID: uid, GID: gid}
		}
		u, secret, err := users.AddUser(in)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Added user %s (the secret is shown only now):\n  access key: %s\n  secret key: %s\n", u.Name, u.AccessKey, secret)
		return nil
	case "list":
		list, err := users.ListUsers()
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ACCESS KEY\tNAME\tCREATED\tUID:GID\tSTATUS\tPOLICY")
		for _, u := range list {
			ids, status := "-", "enabled"
			if u.POSIX != nil {
				ids = fmt.Sprintf("%d:%d", u.POSIX.UID, u.POSIX.GID)
			}
			if u.Disabled {
				status = "disabled"
			}
			name := u.Name
			if name == "" {
				name = "-"
			}
			pol := "-"
			if u.HasPolicy {
				pol = "identity"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", u.AccessKey, name, u.Created.Format(time.RFC3339), ids, status, pol)
		}
		return tw.Flush()
	case "remove":
		if err := users.RemoveUser(pos[0]); err != nil {
			return userErr(err, pos[0])
		}
		fmt.Fprintf(e.stdout, "Removed user %s; its buckets now belong to the root user alone.\n", pos[0])
		return nil
	case "rotate":
		secret, err := users.RotateUser(pos[0])
		if err != nil {
			return userErr(err, pos[0])
		}
		fmt.Fprintf(e.stdout, "New secret for %s (shown only now; the old one no longer works):\n  secret key: %s\n", pos[0], secret)
		return nil
	default: // disable, enable
		change := users.EnableUser
		if sub == "disable" {
			change = users.DisableUser
		}
		if err := change(pos[0]); err != nil {
			return userErr(err, pos[0])
		}
		fmt.Fprintf(e.stdout, "User %s %sd.\n", pos[0], sub)
		return nil
	}
}

func userErr(err error, accessKey string) error {
	if errors.Is(err, object.ErrNoSuchUser) {
		return fmt.Errorf("no user with access key %s", accessKey)
	}
	return err
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments, and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// openOffline opens the layer of a root for a command that must not run
// beside a gateway serving it: the index lock is taken with a short
// timeout, and failing that the error says why.
func openOffline(root string) (*object.Layer, error) {
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--root %s: not a directory", root)
	}
	if _, err := os.Stat(filepath.Join(root, storage.StateDir)); errors.Is(err, iofs.ErrNotExist) {
		// A root the gateway never served has no state directory yet.
		layer, err := object.Open(object.Options{Root: root})
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", root, err)
		}
		return layer, nil
	}
	layer, err := object.OpenExclusive(object.Options{Root: root})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	return layer, nil
}

// rootAccessKey returns the root user's access key without creating one:
// from the environment, else from the credentials file, else "".
func rootAccessKey(getenv func(string) string, path string) string {
	if ak := getenv("OBJECTGATEWAY_ACCESS_KEY"); ak != "" {
		return ak
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var c credentials
	if json.Unmarshal(data, &c) != nil {
		return ""
	}
	return strings.TrimSpace(c.Access)
}
