// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {ForwarderFactory, Terms} from "./ForwarderFactory.sol";

/// @notice Invoice addresses (catalogue `invoice_factory`): one sweep, once the balance covers
/// the amount A. The recipient gets exactly A - fee(A); the fee wallet gets the rest, the fee
/// plus any overpayment (LEDGER "Invoices"). After that the invoice is settled: later
/// transfers are late transfers, moved only by the operator's explicit `recover`.
contract InvoiceForwarderFactory is ForwarderFactory {
    /// @notice Forwarders whose invoice has been paid out.
    mapping(address forwarder => bool) public settled;

    error Underfunded(uint256 balance, uint256 amount);
    error AlreadySettled();
    error UseSweep();
    error ZeroAmount();

    constructor(address initialOwner, address initialFeeWallet) ForwarderFactory(initialOwner, initialFeeWallet) {}

    function _sweepSplit(address forwarder, Terms calldata t, uint256 balance)
        internal
        override
        returns (uint256 toRecipient, uint256 toOperator)
    {
        if (settled[forwarder]) revert AlreadySettled();
        // An invoice of 0 would be "paid" by an empty address and give the recipient nothing.
        if (t.amount == 0) revert ZeroAmount();
        if (balance < t.amount) revert Underfunded(balance, t.amount);
        settled[forwarder] = true;
        toRecipient = t.amount - _fee(t.amount, t);
        toOperator = balance - toRecipient;
    }

    /// @dev Before settlement the invoice's own token moves only through `sweep`, so that
    /// `recover` cannot pay out an underfunded invoice or change the invoice split.
    function _checkRecover(address forwarder, Terms calldata t, address asset) internal view override {
        if (asset == t.token && !settled[forwarder]) revert UseSweep();
    }
}
