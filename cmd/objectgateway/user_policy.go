package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

const userPolicyUsage = `usage: objectgateway user policy <command> AK [--root DIR] ...

  put AK FILE|-     attach the identity policy in FILE (- reads stdin) to the
                    user, replacing the one it had
  get AK            print the user's identity policy as it was put
  delete AK         remove the user's identity policy

An identity policy is an IAM policy without Principal: it applies to the
user it is attached to, on every bucket, together with the bucket's own
policy (an explicit Deny in either wins; an Allow in either, or owning the
bucket, allows). At most 2,048 characters, white space not counted.
See docs/users.md.`

// errMalformedPolicy is wrapped by the error of a policy put that does not
// validate; its text is the validator's message.
var errMalformedPolicy = errors.New("malformed policy")

// userPolicyCmd is `objectgateway user policy`.
func userPolicyCmd(args []string, e env) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(e.stdout, userPolicyUsage)
		return nil
	}
	verb, args := args[0], args[1:]
	fs, root := offlineFlags("user policy "+verb, e)
	index := indexFlag(fs, e)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	want := 1
	switch verb {
	case "put":
		want = 2
	case "get", "delete":
	default:
		return fmt.Errorf("unknown user policy command %q\n%s", verb, userPolicyUsage)
	}
	if len(pos) != want {
		return fmt.Errorf("user policy %s: wrong number of arguments\n%s", verb, userPolicyUsage)
	}
	ak := pos[0]
	var doc []byte
	if verb == "put" {
		// The document is read and validated before the index or the
		// gateway is reached, so that a mistake costs nothing.
		if doc, err = readPolicyFile(pos[1], e.stdin); err != nil {
			return err
		}
		if _, err := policy.ParseIdentity(doc); err != nil {
			return policyErr(err)
		}
	}

	users, done, err := openAdmin(*root, *index, e.getenv)
	if err != nil {
		return err
	}
	defer done()

	switch verb {
	case "put":
		if err := users.SetUserPolicy(ak, string(doc)); err != nil {
			return userErr(policyErr(err), ak)
		}
		fmt.Fprintf(e.stdout, "Identity policy of %s set; it is in force from its next request.\n", ak)
	case "get":
		doc, err := users.UserPolicy(ak)
		if err != nil {
			return userErr(noPolicyErr(err, ak), ak)
		}
		io.WriteString(e.stdout, doc)
		if len(doc) > 0 && doc[len(doc)-1] != '\n' {
			fmt.Fprintln(e.stdout)
		}
	default: // delete
		if err := users.SetUserPolicy(ak, ""); err != nil {
			return userErr(noPolicyErr(err, ak), ak)
		}
		fmt.Fprintf(e.stdout, "Identity policy of %s removed.\n", ak)
	}
	return nil
}

// readPolicyFile reads the policy document in path, or stdin for "-",
// refusing more than policy.MaxSize bytes.
func readPolicyFile(path string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if path == "-" {
		if stdin == nil {
			return nil, errors.New("user policy put: no standard input")
		}
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("user policy put: %w", err)
		}
		defer f.Close()
		r = f
	}
	doc, err := io.ReadAll(io.LimitReader(r, policy.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("user policy put: reading %s: %w", path, err)
	}
	if len(doc) > policy.MaxSize {
		return nil, fmt.Errorf("%w: a policy document is at most %d bytes", errMalformedPolicy, policy.MaxSize)
	}
	return doc, nil
}

// policyErr turns the validator's MalformedPolicy into errMalformedPolicy
// with its message, so that the command says what is wrong in words and
// the control socket can tell it apart.
func policyErr(err error) error {
	if c, ok := s3err.CodeOf(err); ok && c == s3err.MalformedPolicy {
		return fmt.Errorf("%w: %s", errMalformedPolicy, s3err.As(err).Text())
	}
	return err
}

// noPolicyErr is the error of get and delete for a user without a policy.
func noPolicyErr(err error, accessKey string) error {
	if errors.Is(err, object.ErrNoUserPolicy) {
		return fmt.Errorf("user %s has no identity policy", accessKey)
	}
	return err
}
