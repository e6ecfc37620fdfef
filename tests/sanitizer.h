// Test support: whether this build runs under AddressSanitizer (tools/test --sanitize), for the
// tests that cannot run there (address-space limits) or take too long there (heavy simulations).
#pragma once

namespace tbdr {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kAddressSanitizer = false;
#endif

}  // namespace tbdr
