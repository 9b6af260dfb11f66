# https-common.sh: what the https scripts share (sourced after test/lib.sh and scratch): test
# certificates made now with openssl (never kept in the tree), in $tmp/pki:
#   ca.pem            the test CA
#   srv.pem, srv.key  localhost and 127.0.0.1, signed by it
#   other.pem         a server certificate of another CA (wrong CA), key srv.key
#   expired.pem       localhost and 127.0.0.1, signed by the CA, expired yesterday
#   wrongname.pem     other.example only, signed by the CA
https_pki() {
	local d=$tmp/pki
	mkdir -p "$d"
	(
		cd "$d" || exit 1
		ca() { # ca NAME: a self-signed CA
			openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
			    -subj "/CN=sctpapps test $1" -keyout "$1.key" -out "$1.pem" \
			    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=keyCertSign
		}
		sign() { # sign CA OUT DAYS SAN
			printf 'subjectAltName=%s\n' "$4" >"$2.ext"
			openssl x509 -req -in srv.csr -CA "$1.pem" -CAkey "$1.key" -CAcreateserial \
			    -days "$3" -extfile "$2.ext" -out "$2.pem"
		}
		ca ca && ca otherca &&
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
		    -keyout srv.key -out srv.csr &&
		sign ca srv 30 DNS:localhost,IP:127.0.0.1 &&
		sign otherca other 30 DNS:localhost,IP:127.0.0.1 &&
		sign ca expired -1 DNS:localhost,IP:127.0.0.1 &&
		sign ca wrongname 30 DNS:other.example
	) >"$d/log" 2>&1
}
