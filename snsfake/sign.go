package snsfake

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"sync"
)

// The envelope's signature (SPEC-sns.md §7.1): SNS signs each notification and
// confirmation with RSA, SHA1withRSA for SignatureVersion 1 and SHA256withRSA for 2, and
// names the certificate to check it with in SigningCertURL. The fake signs with a fixed
// 2048-bit test key of its own, the same in every fake and every run, so that envelopes are
// byte-identical run after run; its self-signed certificate (subject sns.amazonaws.com,
// organisation "sqsfake (not Amazon)") is SigningCertificate, and the server serves it at
// the SigningCertURL path. A consumer that checks the signature against the certificate it
// downloads works against the fake; one that also checks that the certificate chains to a
// public CA must be given this certificate as trusted in its tests.

const testKeyPEM = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAqD31QxpUHuVSVivJKKoveGPQhcgOdr53aTquzJ+NItzKEMGp
JDKxF9kA4hftSq1LftifBbWHKXZKSi9j89jtzK0t+YQsrTivjERAcNpf/m0uG+Ku
eOnWjNHoLNiRF50EoPe0R1D1Ewc4y51wI3Kib+SllqsXnHsX5v0G0w9C9yh0XhlS
LBBbZJBCmTJKSZsnCdkuL66l9vKGiJzqeSbUk6U1u8J84TOz0BxxHQHQ/eVhASP4
BAcQr6SQPKgy5eA5XRfQXEbaWssSDEoQh3rIydrGdF+NFE+ewU5JDkOtHDDTaN50
06jbobom6OzyOSE8D+g3474kmAkxGmHStTJZYwIDAQABAoIBAEU+QtxcULTqkymu
Gbun16PICQGWpgVPPNxNb7X+ENuBXZTp79BbILH8+TUUvfAXRNQvGbwCy19QNSE1
QgERjkXIHPzt3mloxC+Jw6/u4MVZcDm/4SkYrNoGZnVWqNi8IjSR3lvfwQ4U0dZT
tNySCLLeuxw4zJ31t4+1IgLp7BjGncA/Pk1bHD00pm3jfCPWwKlSxeCqM10XbJoy
Z3FgkkSH/Q8SuFLurzjqm+S3r6YXzGInTKqLcndqLVTyEd3i2Bu79ZehpTBh+vXO
hiHq57uKnCVxjd9A/wYcejLxFnTQRIKfWiFHoO9dR0DmYm9/088MQUHiKd0wzwDS
le7nWcECgYEAyceY1Y+4AEQuEHrR5cC2B7PsUuquID1y5GN+2s8Y1dFimOewh4Rr
2QHejyeGAXBDp8qMtA0qOhfQQMV2C+27RLdXUrxu2lMqV95Mg5LxTIUW29RuUcqa
q/CoR/S1tQVA7aUnUYqYLmWVxUIpQGJAbUzjlG4NEKRbllVyoy6drkMCgYEA1XNP
NsLO4hDu7m70qRDkZXa2YF3laAi4wy/JBBjLkjqElCmdSDs9UEKctXFy/+lvBKhO
I6YmfPPAtsYP5D+Jxz8k9YSrOTGTioIuJRw8yF9bEpwXgXTdEG9yV4ySrD+IWRJG
Af6cWnH7fQzX4Pj+5o6NKcssQ3+PJ9soFhqvRmECgYEAnMUMw3BD/0D5oSgriBvv
0ZBC3jEjVD0p1LRQzOP2Ybmqpy3rg36o5BOFvSdyABAfIHBIXWOVGUmDLa+9BYuQ
4dSobcmlPs86qMY4IEm8XD1TAzzK8ZU+ErSJqk5AFwKb7YdRQxMxJWsbsAS1VCaB
8+m3L41JbVKlLen5hTskm00CgYBcNexKo+3sC5SsvJJFV17T1m0DRI0OXHY1HDei
5XNMQKt1tmSUB8N9IMnCOLiNhbLIOE1JaUXHRSZDz1yeJjTHNqgoyJ+PnbM3avW0
YnZ/uXIGoBgnfOzjZMHowHm8n9WvZQ2JXwz8pbEXXK0GK4sy3vJs07DTmA+oEC1J
H04JAQKBgA7WEUzyDVnquE3uB47+z6zdOHV6V+vt/VGLiGzHUKQR+egXRIHqvmys
7jW7vH/0HMnyIkC5AG3EOjJQbIW/AwKrhvusF7/59hMNL9o7GVu8IBsp3iCFmsMW
e9Qco2pnN82VbswYPnfBNgWe20pKl67aoV5AWctEGLY42vJuHmnG
-----END RSA PRIVATE KEY-----
-----BEGIN CERTIFICATE-----
MIIDJjCCAg6gAwIBAgIEATK4bzANBgkqhkiG9w0BAQsFADA7MR0wGwYDVQQKExRz
cXNmYWtlIChub3QgQW1hem9uKTEaMBgGA1UEAxMRc25zLmFtYXpvbmF3cy5jb20w
IBcNMDAwMTAxMDAwMDAwWhgPMjA5OTEyMzEwMDAwMDBaMDsxHTAbBgNVBAoTFHNx
c2Zha2UgKG5vdCBBbWF6b24pMRowGAYDVQQDExFzbnMuYW1hem9uYXdzLmNvbTCC
ASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAKg99UMaVB7lUlYrySiqL3hj
0IXIDna+d2k6rsyfjSLcyhDBqSQysRfZAOIX7UqtS37YnwW1hyl2SkovY/PY7cyt
LfmELK04r4xEQHDaX/5tLhvirnjp1ozR6CzYkRedBKD3tEdQ9RMHOMudcCNyom/k
pZarF5x7F+b9BtMPQvcodF4ZUiwQW2SQQpkySkmbJwnZLi+upfbyhoic6nkm1JOl
NbvCfOEzs9AccR0B0P3lYQEj+AQHEK+kkDyoMuXgOV0X0FxG2lrLEgxKEId6yMna
xnRfjRRPnsFOSQ5DrRww02jedNOo26G6Jujs8jkhPA/oN+O+JJgJMRph0rUyWWMC
AwEAAaMwMC4wDgYDVR0PAQH/BAQDAgeAMBwGA1UdEQQVMBOCEXNucy5hbWF6b25h
d3MuY29tMA0GCSqGSIb3DQEBCwUAA4IBAQBh+TfcMfaUdDQmVxKachP+dZgnoCFt
tLjLnCiQqSFsVCofL1KawBUe0WpBxh1MuLJ8EECMlEhPCVHVZrqjN9tW3XVw+TGC
X9FlNzSw4oSIBcKLaguEgUnDYUw+jf40lC6NsdtpUL/bhmuBYcwKZjW3spCKI0Wh
yekQxa4m0bli7AECkEtRrEwh4em2GrNfL1B0Wxe0kFh9hIhgRPKyouP4OrXZwVr+
yiMlmvbb3DJGSosAO6/ro+VqkZKLznQV+8SrN8ukry9dKrFQvzy/9VD3J1ELR6Tk
JO/qxQA3v6kpeu86i56bte8EWud6nvjGjqouHEvRvkn/U339cOvYk/XY
-----END CERTIFICATE-----
`

type signer struct {
	key     *rsa.PrivateKey
	cert    *x509.Certificate
	certPEM []byte
	name    string // SimpleNotificationService-<32 hex>.pem
}

var theSigner = sync.OnceValue(func() *signer {
	var sg signer
	rest := []byte(testKeyPEM)
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		switch b.Type {
		case "RSA PRIVATE KEY":
			k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
			if err != nil {
				panic("snsfake: the test key does not parse: " + err.Error())
			}
			sg.key = k
		case "CERTIFICATE":
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				panic("snsfake: the test certificate does not parse: " + err.Error())
			}
			sg.cert, sg.certPEM = c, pem.EncodeToMemory(b)
			sum := sha256.Sum256(b.Bytes)
			sg.name = "SimpleNotificationService-" + hex.EncodeToString(sum[:16]) + ".pem"
		}
	}
	return &sg
})

// sign signs text with the signature version ("1" or "2"), base64.
func (sg *signer) sign(version, text string) string {
	var digest []byte
	var h crypto.Hash
	if version == "2" {
		sum := sha256.Sum256([]byte(text))
		digest, h = sum[:], crypto.SHA256
	} else {
		sum := sha1.Sum([]byte(text))
		digest, h = sum[:], crypto.SHA1
	}
	sig, err := rsa.SignPKCS1v15(nil, sg.key, h, digest)
	if err != nil {
		panic("snsfake: signing failed: " + err.Error())
	}
	return base64.StdEncoding.EncodeToString(sig)
}

// SigningCertificate is the certificate whose key signs the fake's envelopes.
func SigningCertificate() *x509.Certificate { return theSigner().cert }

// SigningCertificatePEM is SigningCertificate in PEM, as the SigningCertURL serves it.
func SigningCertificatePEM() []byte { return append([]byte(nil), theSigner().certPEM...) }

// SigningCertPath is the path of SigningCertURL, /SimpleNotificationService-<32 hex>.pem,
// where the server serves SigningCertificatePEM.
func SigningCertPath() string { return "/" + theSigner().name }
