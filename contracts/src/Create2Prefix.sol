// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

/// @dev The byte CREATE2 hashes in front of the deployer's address: 0xff on EVM chains (EIP-1014).
/// The TVM build (contracts/tvm/Create2Prefix.sol) replaces this file with Tron's 0x41.
bytes1 constant CREATE2_PREFIX = 0xff;
