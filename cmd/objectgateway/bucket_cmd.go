package main

import (
	"fmt"
)

const bucketUsage = `usage: objectgateway bucket <command> [--root DIR] ...

  cache-control BUCKET           print the bucket's default Cache-Control
  cache-control BUCKET VALUE     set it: sent with the bucket's objects stored
                                 without Cache-Control (over --default-cache-control)
  cache-control BUCKET --clear   remove it: the server's default applies again

While a gateway serves --root, the change goes through its control
socket and applies from the next request on; with no gateway running, it
is made on the index directly. See docs/cdn.md and docs/users.md.`

// bucketCmd is `objectgateway bucket`: it changes bucket settings that
// S3 has no request for, through the serving gateway's control socket or,
// with none running, in the index of --root directly.
func bucketCmd(args []string, e env) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(e.stdout, bucketUsage)
		return nil
	}
	sub, args := args[0], args[1:]
	if sub != "cache-control" {
		return fmt.Errorf("unknown bucket command %q\n%s", sub, bucketUsage)
	}
	fs, root := offlineFlags("bucket "+sub, e)
	index := indexFlag(fs, e)
	clear := fs.Bool("clear", false, "remove the bucket's default Cache-Control")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 || (*clear && len(pos) != 1) {
		return fmt.Errorf("bucket %s: wrong arguments\n%s", sub, bucketUsage)
	}
	name := pos[0]
	set := len(pos) == 2 || *clear
	var value string
	if len(pos) == 2 {
		value = pos[1]
		if value == "" || !validHeaderValue(value) {
			return fmt.Errorf("bucket cache-control: %q is not a header value (use --clear to remove it)", value)
		}
	}

	ops, done, err := openAdmin(*root, *index, e.getenv)
	if err != nil {
		return err
	}
	defer done()
	if !set {
		cc, err := ops.BucketCacheControl(name)
		if err != nil {
			return fmt.Errorf("bucket %s: %w", name, err)
		}
		if cc == "" {
			fmt.Fprintf(e.stdout, "Bucket %s has no default Cache-Control (the server's --default-cache-control applies).\n", name)
			return nil
		}
		fmt.Fprintln(e.stdout, cc)
		return nil
	}
	if err := ops.SetBucketCacheControl(name, value); err != nil {
		return fmt.Errorf("bucket %s: %w", name, err)
	}
	if value == "" {
		fmt.Fprintf(e.stdout, "Removed the default Cache-Control of bucket %s.\n", name)
	} else {
		fmt.Fprintf(e.stdout, "Objects of bucket %s stored without Cache-Control are now served with %q.\n", name, value)
	}
	return nil
}

// validHeaderValue reports whether v can be sent as one HTTP header
// value: no control characters other than tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
