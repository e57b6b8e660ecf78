// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {TestERC20} from "./TestERC20.sol";

/// @notice USDT-style token: `transfer` and `transferFrom` return nothing (and revert on failure).
contract NoReturnToken is TestERC20 {
    constructor() TestERC20("No Return USD", "NRUSD", 6) {}

    function transfer(address to, uint256 amount) external {
        _move(msg.sender, to, amount);
    }

    function transferFrom(address from, address to, uint256 amount) external {
        _spendAllowance(from, amount);
        _move(from, to, amount);
    }
}
