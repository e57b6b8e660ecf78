// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {TestERC20} from "./TestERC20.sol";

/// @notice A well-behaved 6-decimal stablecoin for tests and the local devnet.
contract TestStablecoin is TestERC20 {
    constructor() TestERC20("Test USD", "TUSD", 6) {}

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _spendAllowance(from, amount);
        _move(from, to, amount);
        return true;
    }
}
