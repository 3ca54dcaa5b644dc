package proxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"time"
)

// Props of the proxy's TLS listener (ShardingSphere-Proxy's
// proxy-frontend-ssl-enabled; the certificate props are shardgen's).
const (
	// PropFrontendSSLEnabled (true/false, default false) makes the
	// listener offer TLS to clients.
	PropFrontendSSLEnabled = "proxy-frontend-ssl-enabled"
	// PropFrontendSSLCert and PropFrontendSSLKey are the PEM files of the
	// listener's certificate and key. Without them the proxy makes a
	// self-signed certificate at start, as ShardingSphere-Proxy does.
	PropFrontendSSLCert = "proxy-frontend-ssl-cert"
	PropFrontendSSLKey  = "proxy-frontend-ssl-key"
)

// frontendTLS returns the listener's TLS configuration: Options.TLS, else
// the props' (nil when TLS is off).
func (s *Server) frontendTLS() (*tls.Config, error) {
	if s.opts.TLS != nil {
		return s.opts.TLS, nil
	}
	props := s.cfg.Deploy.Props
	on, err := props.Bool(PropFrontendSSLEnabled, false)
	if err != nil || !on {
		return nil, err
	}
	certFile, keyFile := props[PropFrontendSSLCert], props[PropFrontendSSLKey]
	var cert tls.Certificate
	switch {
	case certFile != "" && keyFile != "":
		cert, err = tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, errors.New("props: " + PropFrontendSSLCert + ", " + PropFrontendSSLKey + ": " + err.Error())
		}
	case certFile != "" || keyFile != "":
		return nil, errors.New("props: " + PropFrontendSSLCert + " and " + PropFrontendSSLKey + " go together")
	default:
		if cert, err = selfSignedCert(); err != nil {
			return nil, err
		}
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// selfSignedCert makes an ECDSA P-256 certificate for "shardgen-proxy",
// valid for a year from now.
func selfSignedCert() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "shardgen-proxy"}, DNSNames: []string{"shardgen-proxy", "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
