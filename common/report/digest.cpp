#include "common/report/digest.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <stdexcept>

namespace cudalab {

namespace {

// Statically linked libcrypto would read the system's openssl.cnf on first use; a digest needs
// no configuration, and the file (or its absence) on a student's machine must not matter.
bool crypto_initialised() {
  static const bool initialised = OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr) == 1;
  return initialised;
}

EVP_MD_CTX* new_sha256_context() {
  EVP_MD_CTX* ctx = crypto_initialised() ? EVP_MD_CTX_new() : nullptr;
  if (ctx == nullptr || EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx);
    throw std::runtime_error("libcrypto: cannot start a SHA-256 digest");
  }
  return ctx;
}

EVP_MAC_CTX* new_hmac_context(std::string_view key) {
  EVP_MAC* mac = crypto_initialised() ? EVP_MAC_fetch(nullptr, "HMAC", nullptr) : nullptr;
  EVP_MAC_CTX* ctx = mac != nullptr ? EVP_MAC_CTX_new(mac) : nullptr;
  EVP_MAC_free(mac);  // the context keeps its own reference
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
  if (ctx == nullptr ||
      EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) != 1) {
    EVP_MAC_CTX_free(ctx);
    throw std::runtime_error("libcrypto: cannot start an HMAC-SHA256");
  }
  return ctx;
}

std::string hex_of(const unsigned char* bytes, std::size_t length) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (std::size_t i = 0; i < length; ++i) {
    hex += kHex[bytes[i] >> 4];
    hex += kHex[bytes[i] & 0xF];
  }
  return hex;
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
  return hex_of(digest, length);
}

std::string sha256_hex(std::string_view data) {
  Sha256 sha;
  sha.update(data);
  return sha.finish_hex();
}

void HmacSha256::Free::operator()(evp_mac_ctx_st* ctx) const { EVP_MAC_CTX_free(ctx); }

HmacSha256::HmacSha256(std::string_view key) : ctx_(new_hmac_context(key)) {}

void HmacSha256::update(std::string_view data) {
  if (!data.empty() &&
      EVP_MAC_update(ctx_.get(), reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    throw std::runtime_error("libcrypto: HMAC-SHA256 update failed");
  }
}

std::string HmacSha256::finish_hex() {
  unsigned char mac[EVP_MAX_MD_SIZE];
  std::size_t length = 0;
  if (EVP_MAC_final(ctx_.get(), mac, &length, sizeof mac) != 1) throw std::runtime_error("libcrypto: HMAC-SHA256 failed");
  return hex_of(mac, length);
}

HashingStream::Buffer::Buffer(ByteSink& sink) : sink_(sink) { setp(bytes_, bytes_ + sizeof bytes_); }

void HashingStream::Buffer::drain() {
  sink_.update(std::string_view(pbase(), static_cast<std::size_t>(pptr() - pbase())));
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
      sink_.update(std::string_view(s, static_cast<std::size_t>(n)));
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

HashingStream::HashingStream(ByteSink& sink) : std::ostream(nullptr), buffer_(sink) { rdbuf(&buffer_); }


}  // namespace cudalab
