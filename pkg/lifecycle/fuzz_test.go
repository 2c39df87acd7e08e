package lifecycle

import (
	"bytes"
	"testing"
)

// FuzzParse checks that Parse never panics, that everything it accepts
// renders to a document it accepts again with the same rules, and that
// the rendering is a fixed point.
func FuzzParse(f *testing.F) {
	// A rule of each action and filter form.
	f.Add(string(doc(`<Rule><ID>a</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`)))
	f.Add(string(doc(`<Rule><Filter><And><Prefix>p</Prefix><Tag><Key>k</Key><Value>v</Value></Tag><ObjectSizeLessThan>9</ObjectSizeLessThan></And></Filter><Status>Disabled</Status><NoncurrentVersionExpiration><NoncurrentDays>3</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`)))
	f.Add(string(doc(`<Rule><Prefix></Prefix><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>2</DaysAfterInitiation></AbortIncompleteMultipartUpload><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`)))
	f.Add(string(doc(`<Rule><Filter><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan></Filter><Status>Enabled</Status><Expiration><Date>2030-01-01</Date></Expiration></Rule>`)))
	// Escaped text and a tag filter.
	f.Add(string(doc(`<Rule><ID>&lt;&amp;"</ID><Filter><Tag><Key>&amp;</Key><Value></Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>9</Days></Expiration></Rule>`)))
	f.Fuzz(func(t *testing.T, body string) {
		c, err := Parse([]byte(body))
		if err != nil {
			return
		}
		out := Render(c)
		c2, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Render) = %v\n%s", err, out)
		}
		if len(c2.Rules) != len(c.Rules) {
			t.Fatalf("rules %d → %d", len(c.Rules), len(c2.Rules))
		}
		if out2 := Render(c2); !bytes.Equal(out, out2) {
			t.Fatalf("Render not a fixed point:\n%s\n%s", out, out2)
		}
	})
}
