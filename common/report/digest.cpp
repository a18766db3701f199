#include "common/report/digest.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <stdexcept>

namespace cudalab {

namespace {

// Statically linked libcrypto would read the system's openssl.cnf on first use; a digest needs
// no configuration, and the file (or its absence) on a student's machine must not matter.
EVP_MD_CTX* new_sha256_context() {
  static const bool initialised = OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr) == 1;
  EVP_MD_CTX* ctx = initialised ? EVP_MD_CTX_new() : nullptr;
  if (ctx == nullptr || EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx);
    throw std::runtime_error("libcrypto: cannot start a SHA-256 digest");
  }
  return ctx;
}

}  // namespace

void Sha256::Free::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

Sha256::Sha256() : ctx_(new_sha256_context()) {}

void Sha256::update(std::string_view data) {
  if (!data.empty() && EVP_DigestUpdate(ctx_.get(), data.data(), data.size()) != 1) {
    throw std::runtime_error("libcrypto: SHA-256 update failed");
  }
}

std::string Sha256::finish_hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), digest, &length) != 1) throw std::runtime_error("libcrypto: SHA-256 failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xF];
  }
  return hex;
}

std::string sha256_hex(std::string_view data) {
  Sha256 sha;
  sha.update(data);
  return sha.finish_hex();
}

HashingStream::Buffer::Buffer(Sha256& sha) : sha_(sha) { setp(bytes_, bytes_ + sizeof bytes_); }

void HashingStream::Buffer::drain() {
  sha_.update(std::string_view(pbase(), static_cast<std::size_t>(pptr() - pbase())));
  setp(bytes_, bytes_ + sizeof bytes_);
}

HashingStream::Buffer::int_type HashingStream::Buffer::overflow(int_type c) {
  drain();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize HashingStream::Buffer::xsputn(const char* s, std::streamsize n) {
  if (n > epptr() - pptr()) {
    drain();
    if (n >= static_cast<std::streamsize>(sizeof bytes_)) {  // large pieces skip the buffer
      sha_.update(std::string_view(s, static_cast<std::size_t>(n)));
      return n;
    }
  }
  traits_type::copy(pptr(), s, static_cast<std::size_t>(n));
  pbump(static_cast<int>(n));
  return n;
}

int HashingStream::Buffer::sync() {
  drain();
  return 0;
}

HashingStream::HashingStream(Sha256& sha) : std::ostream(nullptr), buffer_(sha) { rdbuf(&buffer_); }


}  // namespace cudalab
