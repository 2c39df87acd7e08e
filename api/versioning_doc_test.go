package api

import (
	"encoding/xml"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// referenceVersioning is parseVersioningConfiguration with xml.Unmarshal
// in place of the token reader, for FuzzParseVersioningConfiguration.
func referenceVersioning(body []byte) (string, error) {
	var in struct {
		XMLName xml.Name `xml:"VersioningConfiguration"`
		versioningDoc
	}
	if err := xml.Unmarshal(body, &in); err != nil {
		return "", s3err.Wrap(s3err.MalformedXML, err)
	}
	return in.versioningDoc.status()
}

func TestParseVersioningConfiguration(t *testing.T) {
	const ns = `xmlns="http://s3.amazonaws.com/doc/2006-03-01/"`
	for _, tc := range []struct {
		name, body string
		want       string
		err        s3err.Code // when want is ""
	}{
		{"enabled, as SDKs send it", `<VersioningConfiguration ` + ns + `><Status>Enabled</Status></VersioningConfiguration>`, versioningEnabled, 0},
		{"suspended", `<VersioningConfiguration><Status>Suspended</Status></VersioningConfiguration>`, versioningSuspended, 0},
		{"MFA delete disabled", `<VersioningConfiguration><MfaDelete>Disabled</MfaDelete><Status>Enabled</Status></VersioningConfiguration>`, versioningEnabled, 0},
		{"another namespace", `<VersioningConfiguration xmlns="urn:x"><Status>Enabled</Status></VersioningConfiguration>`, versioningEnabled, 0},
		{"unknown element ignored", `<VersioningConfiguration><Other><Status>x</Status></Other><Status>Suspended</Status></VersioningConfiguration>`, versioningSuspended, 0},
		{"the last Status counts", `<VersioningConfiguration><Status>Bad</Status><Status>Enabled</Status></VersioningConfiguration>`, versioningEnabled, 0},
		{"MFA delete enabled", `<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Enabled</MfaDelete></VersioningConfiguration>`, "", s3err.NotImplemented},
		{"MFA delete unknown", `<VersioningConfiguration><Status>Enabled</Status><MfaDelete>On</MfaDelete></VersioningConfiguration>`, "", s3err.MalformedXML},
		{"bad status before MFA delete", `<VersioningConfiguration><Status>On</Status><MfaDelete>Enabled</MfaDelete></VersioningConfiguration>`, "", s3err.MalformedXML},
		{"empty", `<VersioningConfiguration/>`, "", s3err.MalformedXML},
		{"empty status", `<VersioningConfiguration><Status></Status></VersioningConfiguration>`, "", s3err.MalformedXML},
		{"disabled", `<VersioningConfiguration><Status>Disabled</Status></VersioningConfiguration>`, "", s3err.MalformedXML},
		{"lower case", `<VersioningConfiguration><Status>enabled</Status></VersioningConfiguration>`, "", s3err.MalformedXML},
		{"white space", `<VersioningConfiguration><Status> Enabled </Status></VersioningConfiguration>`, "", s3err.MalformedXML},
		{"wrong root", `<Versioning><Status>Enabled</Status></Versioning>`, "", s3err.MalformedXML},
		{"truncated", `<VersioningConfiguration><Status>Enabled</Status>`, "", s3err.MalformedXML},
		{"no body", ``, "", s3err.MalformedXML},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseVersioningConfiguration([]byte(tc.body))
			if tc.want != "" {
				if err != nil || got != tc.want {
					t.Fatalf("= %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			wantCodes(t, err, tc.err)
		})
	}
}

func TestAppendVersioningConfiguration(t *testing.T) {
	for status, want := range map[string]string{
		"":                  `<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></VersioningConfiguration>`,
		versioningEnabled:   `<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>`,
		versioningSuspended: `<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Suspended</Status></VersioningConfiguration>`,
	} {
		got := string(appendVersioningConfiguration(nil, status))
		if got != want {
			t.Errorf("status %q renders %s, want %s", status, got, want)
		}
		if status == "" {
			continue
		}
		if back, err := parseVersioningConfiguration([]byte(got)); err != nil || back != status {
			t.Errorf("%s parses back as %q, %v", got, back, err)
		}
	}
}
