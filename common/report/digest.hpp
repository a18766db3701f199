// SHA-256 for the digest a run file carries (report/integrity.hpp), and HMAC-SHA256 for the class
// seal (report/class_seal.hpp), computed by OpenSSL's libcrypto through its EVP interfaces (linked
// statically: the binary still needs no libssl on the lab machines). Fed in pieces, so a run is
// hashed as it is serialized, never held twice.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

struct evp_md_ctx_st;   // OpenSSL's EVP_MD_CTX, kept out of every includer
struct evp_mac_ctx_st;  // EVP_MAC_CTX

namespace cudalab {

// Where hashed bytes go.
class ByteSink {
 public:
  virtual void update(std::string_view data) = 0;

 protected:
  ~ByteSink() = default;
};

class Sha256 final : public ByteSink {
 public:
  Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data) override;
  // 64 lowercase hex digits of everything fed so far; the object is spent afterwards.
  std::string finish_hex();

 private:
  struct Free {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> ctx_;
};

// 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

// HMAC-SHA256 keyed by `key`; libcrypto keeps its own copy of the key, which it wipes when freed.
class HmacSha256 final : public ByteSink {
 public:
  explicit HmacSha256(std::string_view key);
  HmacSha256(const HmacSha256&) = delete;
  HmacSha256& operator=(const HmacSha256&) = delete;
  void update(std::string_view data) override;
  // 64 lowercase hex digits; the object is spent afterwards.
  std::string finish_hex();

 private:
  struct Free {
    void operator()(evp_mac_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_mac_ctx_st, Free> ctx_;
};

// An output stream whose bytes go into a sink (a Sha256, an HmacSha256): what is written to it is
// hashed, not stored.
class HashingStream : public std::ostream {
 public:
  // flush() it before finishing the hash.
  explicit HashingStream(ByteSink& sink);

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(ByteSink& sink);
    void drain();

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    ByteSink& sink_;
    char bytes_[1 << 16];
  };
  Buffer buffer_;
};

}  // namespace cudalab
