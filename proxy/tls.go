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
	"net"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
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
	// PropRequireSecureTransport (true/false, default false) refuses
	// clients that do not switch to TLS, with ERROR 3159 as MySQL's
	// require_secure_transport=ON does; it needs the TLS listener
	// (PropFrontendSSLEnabled or Options.TLS).
	PropRequireSecureTransport = "proxy-frontend-require-secure-transport"
)

// errInsecureTransport is MySQL's ER_SECURE_TRANSPORT_REQUIRED, the answer
// to a client that authenticates without TLS when
// PropRequireSecureTransport is on.
var errInsecureTransport = sqlerror.NewSQLError(3159, sqlerror.SSUnknownSQLState,
	"Connections using insecure transport are prohibited while --require_secure_transport=ON.")

// requireSecureTransport reads PropRequireSecureTransport; tc is the
// listener's TLS configuration (nil: none), without which the prop is an
// error.
func (s *Server) requireSecureTransport(tc *tls.Config) (bool, error) {
	on, err := s.cfg.Deploy.Props.Bool(PropRequireSecureTransport, false)
	if err != nil {
		return false, err
	}
	if on && tc == nil {
		return false, errors.New("props: " + PropRequireSecureTransport + " needs the TLS listener (" + PropFrontendSSLEnabled + ": true)")
	}
	return on, nil
}

// secureAuth is an authentication server whose methods refuse a client
// connected without TLS (errInsecureTransport) before checking its
// password, as MySQL refuses it under require_secure_transport.
type secureAuth struct {
	mysql.AuthServer
	methods []mysql.AuthMethod
}

func newSecureAuth(a mysql.AuthServer) *secureAuth {
	s := &secureAuth{AuthServer: a}
	for _, m := range a.AuthMethods() {
		s.methods = append(s.methods, secureMethod{m})
	}
	return s
}

// AuthMethods implements mysql.AuthServer.
func (s *secureAuth) AuthMethods() []mysql.AuthMethod { return s.methods }

// secureMethod is an authentication method that refuses a client without
// TLS.
type secureMethod struct{ mysql.AuthMethod }

// HandleAuthPluginData implements mysql.AuthMethod.
func (m secureMethod) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, remoteAddr net.Addr) (mysql.Getter, error) {
	if !c.TLSEnabled() {
		return nil, errInsecureTransport
	}
	return m.AuthMethod.HandleAuthPluginData(c, user, serverData, clientData, remoteAddr)
}

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
