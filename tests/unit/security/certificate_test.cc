// CZMQ-format certificates: round trips, a certificate as CZMQ writes it, the checks on keys,
// and the file rules for secrets (mode, regular file, no overwrite).
#include "fleet/security/certificate.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "fleet/security/private_file.h"
#include "scratch_dir.h"

namespace fleet::security {
namespace {

using test::ScratchDir;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  stat(path.c_str(), &st);
  return st.st_mode & 0777;
}

void write(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  chmod(path.c_str(), mode);
}

TEST(Certificate, SecretRoundTripKeepsBothKeysAndPublicHasNoSecret) {
  const CurveKeyPair keys = generate_key_pair();
  Certificate c{"coordinator", keys.public_z85, keys.secret_z85};
  auto back = parse_certificate(format_secret_certificate(c), "mem");
  ASSERT_TRUE(back) << back.status().message();
  EXPECT_EQ(back->name, "coordinator");
  EXPECT_EQ(back->public_z85, keys.public_z85);
  EXPECT_EQ(back->secret_z85, keys.secret_z85);
  const std::string pub = format_public_certificate(c);
  EXPECT_EQ(pub.find(keys.secret_z85), std::string::npos);
  EXPECT_EQ(pub.find("secret-key"), std::string::npos);
  auto only_public = parse_certificate(pub, "mem");
  ASSERT_TRUE(only_public);
  EXPECT_TRUE(only_public->secret_z85.empty());
}

// Laid out as CZMQ's zcert_save writes it (zconfig: comments, sections, 4-space indents).
TEST(Certificate, ReadsCertificateAsCzmqWritesIt) {
  const CurveKeyPair keys = generate_key_pair();
  const std::string czmq =
      "#   ****  Generated on 2026-11-30 10:00:00 by CZMQ  ****\n"
      "#   ZeroMQ CURVE **Secret** Certificate\n"
      "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n"
      "\n"
      "metadata\n"
      "    name = \"gpu-07\"\n"
      "    email = \"ops@example.com\"\n"
      "curve\n"
      "    public-key = \"" +
      keys.public_z85 +
      "\"\n"
      "    secret-key = \"" +
      keys.secret_z85 + "\"\n";
  auto c = parse_certificate(czmq, "gpu-07.key_secret");
  ASSERT_TRUE(c) << c.status().message();
  EXPECT_EQ(c->name, "gpu-07");
  EXPECT_EQ(c->public_z85, keys.public_z85);
  EXPECT_EQ(c->secret_z85, keys.secret_z85);
}

TEST(Certificate, RefusesMissingMalformedAndMismatchedKeys) {
  const CurveKeyPair a = generate_key_pair();
  const CurveKeyPair b = generate_key_pair();
  auto none = parse_certificate("metadata\ncurve\n", "f");
  ASSERT_FALSE(none);
  EXPECT_NE(none.status().message().find("f: no curve/public-key"), std::string::npos);
  auto short_key = parse_certificate("curve\n    public-key = \"abc\"\n", "f");
  ASSERT_FALSE(short_key);
  EXPECT_NE(short_key.status().message().find("not a 40-character Z85 key"), std::string::npos);
  auto mixed = parse_certificate("curve\n    public-key = \"" + a.public_z85 +
                                     "\"\n    secret-key = \"" + b.secret_z85 + "\"\n",
                                 "f");
  ASSERT_FALSE(mixed);
  EXPECT_NE(mixed.status().message().find("does not belong to its public-key"), std::string::npos);
  auto section_with_value = parse_certificate("curve = 1\n", "f");
  ASSERT_FALSE(section_with_value);
  EXPECT_NE(section_with_value.status().message().find("f:1:"), std::string::npos);
}

TEST(Certificate, KeygenWritesPrivateSecretAndRefusesToOverwrite) {
  ScratchDir dir;
  const CurveKeyPair keys = generate_key_pair();
  ASSERT_TRUE(write_certificate_pair(dir.path(), "w1", keys, false));
  EXPECT_EQ(mode_of(dir / "w1.key_secret"), 0600u);
  EXPECT_EQ(mode_of(dir / "w1.key"), 0644u);
  auto secret = load_secret_certificate(dir / "w1.key_secret", "--curve-cert");
  ASSERT_TRUE(secret) << secret.status().message();
  EXPECT_EQ(secret->secret_z85, keys.secret_z85);
  auto pub = load_public_certificate(dir / "w1.key", "--authorized-keys");
  ASSERT_TRUE(pub);
  EXPECT_EQ(pub->public_z85, keys.public_z85);

  Status again = write_certificate_pair(dir.path(), "w1", generate_key_pair(), false);
  ASSERT_FALSE(again);
  EXPECT_NE(again.message().find("already exists"), std::string::npos);
  EXPECT_EQ(load_secret_certificate(dir / "w1.key_secret", "x")->secret_z85, keys.secret_z85);
  const CurveKeyPair other = generate_key_pair();
  ASSERT_TRUE(write_certificate_pair(dir.path(), "w1", other, true));
  EXPECT_EQ(load_secret_certificate(dir / "w1.key_secret", "x")->secret_z85, other.secret_z85);
  EXPECT_EQ(mode_of(dir / "w1.key_secret"), 0600u);
  EXPECT_FALSE(write_certificate_pair(dir.path(), "../escape", keys, false));
}

TEST(Certificate, SecretReadableByOthersIsRefusedNamingFileAndMode) {
  ScratchDir dir;
  const CurveKeyPair keys = generate_key_pair();
  const std::string path = dir / "c.key_secret";
  write(path, format_secret_certificate({"c", keys.public_z85, keys.secret_z85}), 0644);
  auto r = load_secret_certificate(path, "--curve-cert");
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("--curve-cert " + path), std::string::npos);
  EXPECT_NE(r.status().message().find("mode is 0644"), std::string::npos);
  EXPECT_NE(r.status().message().find("chmod 600 " + path), std::string::npos);
  EXPECT_EQ(r.status().message().find(keys.secret_z85), std::string::npos);
  chmod(path.c_str(), 0640);
  EXPECT_FALSE(load_secret_certificate(path, "--curve-cert"));
  chmod(path.c_str(), 0600);
  EXPECT_TRUE(load_secret_certificate(path, "--curve-cert"));
}

TEST(Certificate, PublicCertificateGivenAsSecretIsRefused) {
  ScratchDir dir;
  const CurveKeyPair keys = generate_key_pair();
  const std::string path = dir / "c.key";
  write(path, format_public_certificate({"c", keys.public_z85, ""}), 0600);
  auto r = load_secret_certificate(path, "--curve-cert");
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("a public certificate"), std::string::npos);
}

TEST(PrivateFile, FifoDeviceAndOversizedFilesAreRefusedWithoutBlocking) {
  ScratchDir dir;
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto r = read_private_file(fifo, "--l2-secret-file");  // must not wait for a writer
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("not a regular file"), std::string::npos);
  EXPECT_FALSE(read_small_file("/dev/zero", "--known-workers"));
  const std::string big = dir / "big";
  write(big, std::string(70 * 1024, 'x'), 0600);
  auto too_big = read_private_file(big, "--curve-cert");
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.status().message().find("71680 bytes"), std::string::npos);
  auto missing = read_small_file(dir / "nope", "--authorized-keys");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("cannot open"), std::string::npos);
}

TEST(CurveKey, FingerprintIsStableAndShort) {
  const CurveKeyPair keys = generate_key_pair();
  const std::string fp = fingerprint(keys.public_z85);
  EXPECT_EQ(fp.rfind("sha256:", 0), 0u);
  EXPECT_EQ(fp.size(), 7u + 16u);
  EXPECT_EQ(fp, fingerprint(keys.public_z85));
  EXPECT_NE(fp, fingerprint(generate_key_pair().public_z85));
  EXPECT_EQ(public_key_of(keys.secret_z85), keys.public_z85);
  EXPECT_FALSE(is_z85_key("too short"));
}

}  // namespace
}  // namespace fleet::security
