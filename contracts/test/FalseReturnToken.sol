// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {TestERC20} from "./TestERC20.sol";

/// @notice Token that reports failure by returning `false` instead of reverting: on an
/// insufficient balance, and on every transfer while `frozen`.
contract FalseReturnToken is TestERC20 {
    bool public frozen;

    constructor() TestERC20("False Return USD", "FRUSD", 6) {}

    function setFrozen(bool value) external {
        frozen = value;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        if (frozen || balanceOf[msg.sender] < amount) return false;
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        if (frozen || balanceOf[from] < amount || allowance[from][msg.sender] < amount) return false;
        _spendAllowance(from, amount);
        _move(from, to, amount);
        return true;
    }
}
