// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

/// @dev The TVM hashes the network's address prefix (0x41 on mainnet, Nile and Shasta) where the
/// EVM hashes 0xff: keccak256(0x41 ‖ deployer ‖ salt ‖ keccak256(init code)) (java-tron's
/// generateContractAddress2). Replaces contracts/src/Create2Prefix.sol in the TVM build.
bytes1 constant CREATE2_PREFIX = 0x41;
