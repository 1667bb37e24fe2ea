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
// 1024-bit test key of its own (AWS's are 2048-bit; half the size signs about three times
// faster, which a test publishing thousands of messages feels), the same in every fake and every run, so that envelopes are
// byte-identical run after run; its self-signed certificate (subject sns.amazonaws.com,
// organisation "sqsfake (not Amazon)") is SigningCertificate, and the server serves it at
// the SigningCertURL path. A consumer that checks the signature against the certificate it
// downloads works against the fake; one that also checks that the certificate chains to a
// public CA must be given this certificate as trusted in its tests.

const testKeyPEM = `-----BEGIN RSA PRIVATE KEY-----
MIICXAIBAAKBgQDEl9EgiQG05lp8a+eVzM+FEhuB7ANhA0WoWdA6QFF2q4Lmmj79
arGBMMSssfrKvz1ljpzaq1NBURlRweh3vHiHv7P1bZKiNokH7ipqezQ7t21uBvk9
Rltdt2pd2m6skEP7xOnqfhanLDxCYHAcrgRRAIgmy0nDynYCR8eWMWJSWwIDAQAB
AoGACICydFBIqRzPbBM0rHdzwEMkum1NRhxgnmPoDCTtAQ9w9W1VbRt4uugzkW6P
NMaprqNI6HJBgxExYaZb2hXmNpFkWMW/OFefu/TBV5l3XAm182ylRkWGNRxhH7Il
6T2itURf+BSPS8sEmTUD0ckcizgegNHUXylQEq89gRhJugECQQDufYPxxli5Sa4x
o8dGXk25u1eH/AD6d6vcBAG4Fc/TYzJrEReht4yiX4HUQ7tsGmHsvKesjyev/64A
7wM2DTRbAkEA0wbVAMniuVh/Cax+Mbk1eDXBi52NsGmqfQs5eTihK5wcNUr8oRci
o3oERi0e1iMqCe4u70u/fZAGNzRN/9G6AQJAUMWJznTSz844hO9nKln+EQ12E8Qx
wKKPPjDNND+O55UNGl3rlwXHR6b5HZ7i9zXoPHmYgETruBvsHrzUZZYLSQJBAIg1
J7UbmiDiExVuZgG4NuABaoywRC0y9t1BKnao67aXS8nGPevIYA4+ipW1N+slxVOl
jlvce5wTIz/snc/aUgECQDCGASbcJf5AUN6tNQM1G58jzBlWV5PPb4DCV8WAfwkQ
BB5evRfzgu3EEA6e5alLNHBma8pIU977m7iIzvfqMbM=
-----END RSA PRIVATE KEY-----
-----BEGIN CERTIFICATE-----
MIICITCCAYqgAwIBAgIEATK4bzANBgkqhkiG9w0BAQsFADA7MR0wGwYDVQQKExRz
cXNmYWtlIChub3QgQW1hem9uKTEaMBgGA1UEAxMRc25zLmFtYXpvbmF3cy5jb20w
IBcNMDAwMTAxMDAwMDAwWhgPMjA5OTEyMzEwMDAwMDBaMDsxHTAbBgNVBAoTFHNx
c2Zha2UgKG5vdCBBbWF6b24pMRowGAYDVQQDExFzbnMuYW1hem9uYXdzLmNvbTCB
nzANBgkqhkiG9w0BAQEFAAOBjQAwgYkCgYEAxJfRIIkBtOZafGvnlczPhRIbgewD
YQNFqFnQOkBRdquC5po+/WqxgTDErLH6yr89ZY6c2qtTQVEZUcHod7x4h7+z9W2S
ojaJB+4qans0O7dtbgb5PUZbXbdqXdpurJBD+8Tp6n4Wpyw8QmBwHK4EUQCIJstJ
w8p2AkfHljFiUlsCAwEAAaMwMC4wDgYDVR0PAQH/BAQDAgeAMBwGA1UdEQQVMBOC
EXNucy5hbWF6b25hd3MuY29tMA0GCSqGSIb3DQEBCwUAA4GBADPicepbSTttPEnf
jclLyxjxXPJ3Jd8+z9ooHrqqE14dpWKEu4bGzApbION37d1RkHdPx8dOpS03OubP
cfiFxnH1pILE6e4R6298fgG62159ckamLy4HcKND83oh6i0qxXLLfw/C50aQ2e8l
NgyvhXuBKSI8IZa9ceVJttdEKaYB
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
