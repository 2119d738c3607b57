#include "test_certs.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace pr::test {

namespace {

constexpr const char* kOpenssl = "/usr/bin/openssl";

/// Runs openssl with `args` (no quoting needed: the paths are the test's own temporary ones),
/// its output into `log`; false with the command and the output.
bool openssl(const std::string& args, const std::string& log, std::string* error) {
  const std::string command = std::string(kOpenssl) + " " + args + " > " + log + " 2>&1";
  if (std::system(command.c_str()) == 0) return true;
  std::ifstream f(log);
  std::stringstream s;
  s << f.rdbuf();
  if (error) *error = "openssl failed: " + command + ": " + s.str();
  return false;
}

/// A P-256 key and a certificate for `san` (e.g. "IP:127.0.0.1") signed by the authority in
/// `dir`, as `name`.pem and `name`.key.
bool signed_cert(const std::string& dir, const std::string& name, const std::string& cn,
                 const std::string& san, std::string* error) {
  const std::string base = dir + "/" + name, log = dir + "/openssl.log";
  std::ofstream(base + ".ext") << "subjectAltName=" << san
                               << "\nbasicConstraints=CA:FALSE\n"
                                  "keyUsage=digitalSignature,keyEncipherment\n"
                                  "extendedKeyUsage=serverAuth\n";
  return openssl("req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " +
                     base + ".key -out " + base + ".csr -subj /CN=" + cn,
                 log, error) &&
         openssl("x509 -req -in " + base + ".csr -CA " + dir + "/ca.pem -CAkey " + dir +
                     "/ca.key -set_serial " + std::to_string(name.size()) + " -days 2 -out " +
                     base + ".pem -extfile " + base + ".ext",
                 log, error);
}

}  // namespace

std::string openssl_unavailable() {
  if (::access(kOpenssl, X_OK) == 0) return "";
  return std::string(kOpenssl) + " is not installed (Debian: openssl)";
}

bool make_test_certs(const std::string& dir, TestCerts* certs, std::string* error) {
  if (const std::string why = openssl_unavailable(); !why.empty()) {
    if (error) *error = why;
    return false;
  }
  const std::string log = dir + "/openssl.log";
  if (!openssl("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + dir +
                   "/ca.key -out " + dir +
                   "/ca.pem -days 2 -subj /CN=pointraster-test-CA"
                   " -addext basicConstraints=critical,CA:TRUE"
                   " -addext keyUsage=critical,keyCertSign,cRLSign",
               log, error) ||
      !signed_cert(dir, "server", "127.0.0.1", "IP:127.0.0.1", error) ||
      !signed_cert(dir, "elsewhere", "example.org", "DNS:example.org", error))
    return false;
  certs->ca = dir + "/ca.pem";
  certs->server = dir + "/server.pem";
  certs->server_key = dir + "/server.key";
  certs->elsewhere = dir + "/elsewhere.pem";
  certs->elsewhere_key = dir + "/elsewhere.key";
  return true;
}

}  // namespace pr::test
