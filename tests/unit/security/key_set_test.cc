// --authorized-keys: one certificate or a directory of them (secrets and dotfiles skipped).
#include "fleet/security/key_set.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fleet/security/certificate.h"
#include "scratch_dir.h"

namespace fleet::security {
namespace {

using test::ScratchDir;

TEST(AuthorizedKeys, DirectoryLoadsEveryPublicCertificateAndSkipsSecretsAndDotfiles) {
  ScratchDir dir;
  const CurveKeyPair a = generate_key_pair();
  const CurveKeyPair b = generate_key_pair();
  ASSERT_TRUE(write_certificate_pair(dir.path(), "a", a, false));
  ASSERT_TRUE(write_certificate_pair(dir.path(), "b", b, false));
  std::ofstream(dir / ".hidden") << "not a certificate";
  std::filesystem::create_directory(dir / "..data");  // a Kubernetes Secret volume's layout
  auto keys = load_authorized_keys(dir.path());
  ASSERT_TRUE(keys) << keys.status().message();
  EXPECT_EQ(keys->size(), 2u);
  EXPECT_TRUE(keys->contains(a.public_z85));
  EXPECT_TRUE(keys->contains(b.public_z85));
  EXPECT_FALSE(keys->contains(generate_key_pair().public_z85));
  EXPECT_EQ(keys->origin(a.public_z85), dir / "a.key");
}

TEST(AuthorizedKeys, SingleFileEmptyDirectoryAndBadFile) {
  ScratchDir dir;
  const CurveKeyPair a = generate_key_pair();
  ASSERT_TRUE(write_certificate_pair(dir.path(), "a", a, false));
  auto one = load_authorized_keys(dir / "a.key");
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->contains(a.public_z85));

  std::filesystem::create_directory(dir / "empty");
  auto empty = load_authorized_keys(dir / "empty");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.status().message().find("would accept no one"), std::string::npos);

  std::ofstream(dir / "bad.key") << "curve\n    public-key = \"nope\"\n";
  auto bad = load_authorized_keys(dir.path());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find(dir / "bad.key"), std::string::npos);
}

}  // namespace
}  // namespace fleet::security
