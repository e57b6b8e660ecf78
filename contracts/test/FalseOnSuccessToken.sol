// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {TestERC20} from "./TestERC20.sol";

/// @notice Behaves like Tether's USDT on Tron: a successful `transfer` moves the tokens and
/// returns `false`; a failing one reverts. Forwarders on the TVM must judge by balances.
contract FalseOnSuccessToken is TestERC20 {
    constructor() TestERC20("Tether-like USD", "USDT", 6) {}

    function transfer(address to, uint256 amount) external returns (bool) {
        require(balanceOf[msg.sender] >= amount, "insufficient balance");
        _move(msg.sender, to, amount);
        return false;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        require(balanceOf[from] >= amount && allowance[from][msg.sender] >= amount, "insufficient balance or allowance");
        _spendAllowance(from, amount);
        _move(from, to, amount);
        return false;
    }
}
